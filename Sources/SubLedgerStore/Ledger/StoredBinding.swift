import SubLedgerCore

/// One ownership binding as `ChainRows.chainColumns` aggregates it (`[sequence, from, to, reason, ms,
/// transaction]`), before its account ids and reason are checked.
struct StoredBinding: Equatable {
    var sequence: Int
    var from: String?
    var to: String
    var reason: String
    var at: Int64
    var transactionID: String?

    func change(of key: ChainKey) throws -> BindingChange {
        guard let reason = BindingChange.Reason(rawValue: reason) else {
            throw StoreError(code: .corruptRow, message: "unknown binding reason '\(reason)'")
        }
        return BindingChange(
            chain: key, sequence: sequence, from: try from.map { try storedAccount($0) }, to: try storedAccount(to),
            reason: reason, at: Instant(millisecondsSince1970: at), transactionID: transactionID)
    }
}
