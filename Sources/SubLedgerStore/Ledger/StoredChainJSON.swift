import SubLedgerCore

/// The JSON of the stored chain: the `chains.snapshot` and `chains.renewal_info` columns, `transactions.payload`,
/// and the ownership history `ChainRows.chainColumns` aggregates, read and written by hand instead of through
/// Foundation's `JSONDecoder`/`JSONEncoder` (14–15% of the server's CPU per notification).
///
/// Written: the bytes Foundation's `JSONEncoder` (`.sortedKeys`) wrote for the same value, so rows written
/// before and after are the same jsonb and the SQL reading them (`payload->'transaction'->>'price'`, ...) is
/// unaffected. Read: whatever those encoders wrote as PostgreSQL returns it (jsonb's text output: spaces after
/// `:` and `,`, members in jsonb's order, shorter names first; `json_agg`'s separators), with the synthesized decoders' rules
/// (`StoredJSONReader`, `StoredChainJSON+Decoding`); anything else is a `corruptRow` error naming the column.
enum StoredChainJSON {
    static func chain(from text: String) throws -> SubscriptionChain {
        try read(text, "chain") { try $0.readSubscriptionChain() }
    }

    /// `transactions.payload`.
    static func transaction(from text: String) throws -> KnownTransaction {
        try read(text, "transaction") { try $0.readKnownTransaction() }
    }

    /// A JSON array of `transactions.payload` values (`json_agg`).
    static func transactions(from text: String) throws -> [KnownTransaction] {
        try read(text, "transaction") { reader in
            var transactions: [KnownTransaction] = []
            try reader.beginArray()
            var isFirst = true
            while try reader.nextElement(&isFirst) { transactions.append(try reader.readKnownTransaction()) }
            return transactions
        }
    }

    /// The ownership history of `ChainRows.chainColumns`: an array of `[sequence, from, to, reason, ms, transaction]`.
    static func bindings(from text: String) throws -> [StoredBinding] {
        try read(text, "ownership binding") { reader in
            var bindings: [StoredBinding] = []
            try reader.beginArray()
            var isFirst = true
            while try reader.nextElement(&isFirst) { bindings.append(try reader.readStoredBinding()) }
            return bindings
        }
    }

    static func json(of chain: SubscriptionChain) -> String {
        var writer = JSONWriter(capacity: 512, escaping: .foundation)
        writer.write(chain)
        return writer.text
    }

    static func json(of renewal: RenewalInfo) -> String {
        var writer = JSONWriter(capacity: 384, escaping: .foundation)
        writer.write(renewal)
        return writer.text
    }

    static func json(of known: KnownTransaction) -> String {
        var writer = JSONWriter(capacity: 768, escaping: .foundation)
        writer.write(known)
        return writer.text
    }

    private static func read<T>(_ text: String, _ what: String, _ body: (inout StoredJSONReader) throws -> T) throws
        -> T
    {
        do {
            return try StoredJSONReader.read(text, body)
        } catch let malformed as StoredJSONReader.Malformed {
            throw StoreError(code: .corruptRow, message: "a stored \(what) does not decode: \(malformed)")
        }
    }
}
