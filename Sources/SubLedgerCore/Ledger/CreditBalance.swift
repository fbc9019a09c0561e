extension Ledger {
    /// `account`'s consumable credits for `bundleID` at `instant`: credits minus debits effective by then.
    ///
    /// `entries` may hold repeats of one idempotency key (as a naive log would); each key counts once.
    public static func creditBalance(
        for account: AccountID,
        bundleID: String,
        at instant: Instant,
        entries: some Sequence<LedgerEntry>
    ) -> Int64 {
        var seen: Set<String> = []
        var balance: Int64 = 0
        for entry in entries
        where entry.account == account && entry.bundleID == bundleID && entry.effectiveAt <= instant
            && seen.insert(entry.idempotencyKey).inserted
        {
            switch entry.kind {
            // Saturating: credits scale with Apple's `quantity`, which comes from outside.
            case .credit: balance = balance.saturatingAdding(entry.credits ?? 0)
            case .debit: balance = balance.saturatingAdding(-(entry.credits ?? 0).clampedAboveMinimum)
            case .grant, .extend, .revoke, .restore, .transferOut, .transferIn: break
            }
        }
        return balance
    }
}
