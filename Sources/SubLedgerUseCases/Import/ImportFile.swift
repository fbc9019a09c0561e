import Crypto

/// The import file, read: its digest (which names the checkpoint), the rows to import and the rows refused.
public struct ImportFile: Sendable {
    /// The largest file accepted: 2 GiB.
    public static let maximumBytes = 2 * 1024 * 1024 * 1024
    /// The most rows a file may hold.
    public static let maximumRows = 10_000_000

    /// Lowercase hex SHA-256 of the file's bytes.
    public var digest: String
    public var rows: [ImportRow]
    /// Rows that could not be read, with their line numbers and reasons.
    public var refused: [ImportRowError]
    /// Every data row (read or refused).
    public var totalRows: Int { rows.count + refused.count }

    /// Reads `bytes`; throws only when the file as a whole is unusable (no or a wrong header, too large).
    public init(bytes: [UInt8]) throws(ImportError) {
        guard bytes.count <= Self.maximumBytes else {
            throw ImportError(.invalidFile, "the file is larger than \(Self.maximumBytes) bytes")
        }
        digest = SHA256.hash(data: bytes).map { byte in
            let hex = Array("0123456789abcdef")
            return String([hex[Int(byte >> 4)], hex[Int(byte & 0x0f)]])
        }.joined()
        var body = bytes[...]
        if body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }  // a UTF-8 byte order mark
        let records = ImportCSVReader().records(Array(body))
        guard let header = records.first, case .success(let names) = header.fields else {
            throw ImportError(
                .invalidFile,
                "the first line must be the header \(ImportRow.columns.joined(separator: ","))")
        }
        // An App Store, Google Play or web store's subscriptions file, told apart by its header.
        let wanted =
            "the header must name the columns \(ImportRow.columns.joined(separator: ",")) (App Store), "
            + "\(ImportRow.googlePlayColumns.joined(separator: ",")) (Google Play) or "
            + "account_id,<store>_subscription_id (a web store's subscriptions: "
            + "\(ImportRow.subscriptionColumn(of: .stripe))), once each, in any order"
        let columns = names.map { $0.trimmingASCIIWhitespace.lowercased() }
        let expected =
            if let store = ImportRow.subscriptionStore(in: columns) {
                ImportRow.subscriptionColumns(of: store)
            } else {
                columns.contains("purchase_token") ? ImportRow.googlePlayColumns : ImportRow.columns
            }
        var order: [String: Int] = [:]
        for (index, column) in columns.enumerated() {
            guard expected.contains(column), order[column] == nil else { throw ImportError(.invalidFile, wanted) }
            order[column] = index
        }
        guard order.count == expected.count else { throw ImportError(.invalidFile, wanted) }
        guard records.count - 1 <= Self.maximumRows else {
            throw ImportError(.invalidFile, "the file has more than \(Self.maximumRows) rows")
        }
        rows = []
        refused = []
        var seen: [String: Int] = [:]
        for record in records.dropFirst() {
            do throws(ImportRowError) {
                let fields = try record.fields.get(line: record.lineNumber)
                let row = try ImportRow.parse(fields: fields, order: order, lineNumber: record.lineNumber)
                var key: String?
                if let id = row.chainID {
                    key = "\(row.account.rawValue)|\(id)|\(row.environment?.rawValue ?? "")"
                } else if case .googlePurchase(let token, _) = row.source {
                    key = "\(row.account.rawValue)|\(token)"
                } else if case .storeSubscription(_, let id) = row.source {
                    key = "\(row.account.rawValue)|\(id)"
                }
                if let key {
                    if let first = seen[key] { throw ImportRowError(record.lineNumber, .duplicateRow(first)) }
                    seen[key] = record.lineNumber
                }
                rows.append(row)
            } catch {
                refused.append(error)
            }
        }
    }
}

extension Result where Failure == ImportRowError.Reason {
    fileprivate func get(line: Int) throws(ImportRowError) -> Success {
        switch self {
        case .success(let value): return value
        case .failure(let reason): throw ImportRowError(line, reason)
        }
    }
}
