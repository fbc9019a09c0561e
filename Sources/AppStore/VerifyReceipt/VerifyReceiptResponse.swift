import SubLedgerCore

/// The JSON body Apple's `verifyReceipt` endpoint answers with.
///
/// `latest_receipt_info` is an array for iOS 7+ receipts and a single object for pre-iOS 7 ones; both
/// decode into `latestReceiptInfo`.
public struct VerifyReceiptResponse: Codable, Hashable, Sendable {
    /// Apple's `status`: 0 valid, 21000–21199 errors (see `VerifyReceiptStatus`).
    public var status: Int
    /// Raw `environment` (`Production`, `Sandbox`); absent in pre-iOS 7 answers.
    public var rawEnvironment: String?
    /// `is-retryable`, sent with 21100–21199.
    public var isRetryable: Bool?
    /// Apple's `receipt`.
    public var receipt: ReceiptInfo?
    /// Apple's `latest_receipt_info`.
    public var latestReceiptInfo: [ReceiptTransactionInfo]
    /// Pre-iOS 7 `latest_expired_receipt_info`, sent with status 21006.
    public var latestExpiredReceiptInfo: ReceiptTransactionInfo?
    /// The latest base64 receipt, to store for later re-verification.
    public var latestReceipt: String?
    /// Apple's `pending_renewal_info`.
    public var pendingRenewalInfo: [PendingRenewalInfo]

    /// Creates an answer.
    public init(
        status: Int, rawEnvironment: String? = nil, isRetryable: Bool? = nil, receipt: ReceiptInfo? = nil,
        latestReceiptInfo: [ReceiptTransactionInfo] = [], latestExpiredReceiptInfo: ReceiptTransactionInfo? = nil,
        latestReceipt: String? = nil, pendingRenewalInfo: [PendingRenewalInfo] = []
    ) {
        self.status = status
        self.rawEnvironment = rawEnvironment
        self.isRetryable = isRetryable
        self.receipt = receipt
        self.latestReceiptInfo = latestReceiptInfo
        self.latestExpiredReceiptInfo = latestExpiredReceiptInfo
        self.latestReceipt = latestReceipt
        self.pendingRenewalInfo = pendingRenewalInfo
    }

    enum CodingKeys: String, CodingKey {
        case status
        case rawEnvironment = "environment"
        case isRetryable = "is-retryable"
        case receipt
        case latestReceiptInfo = "latest_receipt_info"
        case latestExpiredReceiptInfo = "latest_expired_receipt_info"
        case latestReceipt = "latest_receipt"
        case pendingRenewalInfo = "pending_renewal_info"
    }

    /// Decodes leniently; fails only when the body is not a JSON object with a readable `status`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        guard let status = container.lenientInt(.status) else {
            throw DecodingError.keyNotFound(
                CodingKeys.status,
                .init(codingPath: decoder.codingPath, debugDescription: "verifyReceipt answer without status")
            )
        }
        self.status = status
        rawEnvironment = container.lenientString(.rawEnvironment)
        isRetryable = container.lenientBool(.isRetryable)
        receipt = try? container.decodeIfPresent(ReceiptInfo.self, forKey: .receipt)
        latestReceiptInfo = container.lenientArray(ReceiptTransactionInfo.self, .latestReceiptInfo)
        latestExpiredReceiptInfo = try? container.decodeIfPresent(
            ReceiptTransactionInfo.self,
            forKey: .latestExpiredReceiptInfo
        )
        latestReceipt = container.lenientString(.latestReceipt)
        pendingRenewalInfo = container.lenientArray(PendingRenewalInfo.self, .pendingRenewalInfo)
    }
}

extension VerifyReceiptResponse {
    /// The core's receipt snapshot: every transaction Apple listed, as-is, and renewal info observed at the
    /// request time.
    ///
    /// `receipt.in_app` is the receipt as the device made it; `latest_receipt_info` is Apple's word at the request.
    /// Where both list a transaction, only the current copy is kept: a refund Apple reversed after the receipt was
    /// made still shows its cancellation in `in_app`, and that stale copy, observed at the request time, would hide
    /// the reversal.
    ///
    /// - Parameters:
    ///   - answeredBy: the environment whose endpoint answered, used when the body names none (pre-iOS 7).
    ///   - requestedAt: when the request was made, used when Apple sends no `request_date_ms`.
    ///   - source: `.verifyReceipt`, or `.notificationV1` for a V1 notification's `unified_receipt`.
    public func receiptSnapshot(
        answeredBy: StoreEnvironment,
        requestedAt: Instant,
        source: TransactionSource = .verifyReceipt
    ) throws(PayloadMappingError) -> ReceiptSnapshot {
        guard let receipt else { throw PayloadMappingError(.missingField, field: "receipt") }
        guard let bundleID = receipt.bundleID ?? receipt.bid, !bundleID.isEmpty else {
            throw PayloadMappingError(.missingField, field: "receipt.bundle_id")
        }
        let environment = rawEnvironment.flatMap(StoreEnvironment.init(appleSpelling:)) ?? answeredBy
        let requestDate = try Instant.appleIfPresent(receipt.requestDateMS, field: "request_date_ms") ?? requestedAt
        let creationDate = try Instant.appleIfPresent(receipt.receiptCreationDateMS, field: "receipt_creation_date_ms")
        return try ReceiptSnapshot.assemble(
            bundleID: bundleID,
            applicationVersion: receipt.applicationVersion ?? receipt.bvrs,
            environment: environment,
            creationDate: creationDate ?? requestDate,
            requestDate: requestDate,
            entries: Self.superseded(
                receipt.inApp + [receipt.legacyTransaction].compactMap { $0 },
                by: latestReceiptInfo + [latestExpiredReceiptInfo].compactMap { $0 }),
            renewals: pendingRenewalInfo,
            latestReceipt: latestReceipt,
            source: source
        )
    }
}

extension VerifyReceiptResponse {
    /// The receipt's own entries that `current` (Apple's word at the request) does not list, then `current`.
    static func superseded(
        _ own: [ReceiptTransactionInfo], by current: [ReceiptTransactionInfo]
    ) -> [ReceiptTransactionInfo] {
        let listed = Set(current.compactMap(\.transactionID))
        return own.filter { entry in entry.transactionID.map { !listed.contains($0) } ?? true } + current
    }
}

extension ReceiptSnapshot {
    /// Maps receipt entries and renewal entries into a snapshot, failing on the first unusable entry.
    static func assemble(
        bundleID: String,
        applicationVersion: String?,
        environment: StoreEnvironment,
        creationDate: Instant?,
        requestDate: Instant,
        entries: [ReceiptTransactionInfo],
        renewals: [PendingRenewalInfo],
        latestReceipt: String?,
        source: TransactionSource
    ) throws(PayloadMappingError) -> ReceiptSnapshot {
        var transactions: [Transaction] = []
        transactions.reserveCapacity(entries.count)
        for entry in entries {
            transactions.append(try entry.coreTransaction(bundleID: bundleID, environment: environment, source: source))
        }
        var renewalInfo: [RenewalInfo] = []
        for renewal in renewals {
            renewalInfo.append(try renewal.coreRenewalInfo(environment: environment, observedAt: requestDate))
        }
        return ReceiptSnapshot(
            bundleID: bundleID,
            applicationVersion: applicationVersion,
            environment: environment,
            creationDate: creationDate,
            requestDate: requestDate,
            transactions: transactions,
            renewalInfo: renewalInfo,
            latestReceipt: latestReceipt
        )
    }
}
