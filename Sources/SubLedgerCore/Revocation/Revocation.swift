/// Revocation, end to end: where to start reading how a refund or a Family Sharing revocation takes back
/// what a transaction granted, and how a reversal gives it back.
///
/// ## What revokes
/// Apple sets a revocation date on the transaction itself; every input path ends in
/// `Transaction.revocationDate` and `Transaction.revocationReason`:
/// - verifyReceipt receipts and V1 notifications (`REFUND`, `REVOKE`) carry `cancellation_date_ms` and
///   `cancellation_reason` (AppStore's `ReceiptTransactionInfo` maps them);
/// - StoreKit 2 signed transactions (`REFUND` and `REVOKE` V2 notifications, transaction history, submitted
///   signed transactions) carry `revocationDate` and `revocationReason` (`JWSTransactionDecodedPayload`).
///
/// A Family Sharing revocation (`REVOKE`: the purchaser stopped sharing, or the member left the family) is a
/// revocation date on a `FAMILY_SHARED` transaction; it is recorded with `ObservedRevocation.isFamilySharing`.
/// An upgraded transaction also carries a revocation date, with no reason: that date is the upgrade moment,
/// not a revocation (`isUpgradeMarker(_:)`); it ends the old product through `ChainState.upgradedAway` and a
/// `revoke` entry with reason `upgrade`.
///
/// ## Facts, not flags
/// Each observed version of a transaction adds to its facts (`KnownTransaction.recordRevocationFacts`, in
/// `KnownTransaction+Revocation.swift`, called by `KnownTransaction.merge` in `Chains/TransactionVersion.swift`):
/// every revocation date seen, as an `ObservedRevocation` with the latest time it was observed, and
/// `KnownTransaction.lastUnrevokedObservationAt`, the latest time the transaction was seen without one.
/// A revocation is **reversed** (`REFUND_REVERSED`, or sharing resumed) exactly when a clean version was
/// observed after the latest observation showing it (`KnownTransaction.isReversed(_:)`); a clean copy
/// observed earlier (a stale receipt) reverses nothing. So inputs in any order, repeated or not, agree.
/// `KnownTransaction.activeRevocation` is the latest revocation not reversed, and
/// `KnownTransaction.revocation(inForceAt:)` that one when dated at or before an instant. A new revocation or
/// a reversal counts as news for `KnownTransaction.merge`, so the input's `TransactionOutcome` for the
/// account holding the chain is `applied`, not `duplicate`.
///
/// ## What a revocation takes away
/// Exactly what the transaction granted, from the revocation date on (docs/explanation/ownership.md, "Revocation"):
/// - **Chain state**: `ChainSnapshot.state(at:in:)` (`Chains/ChainStateDerivation.swift`) is `.revoked` when
///   the chain's latest transaction at the instant has a revocation in force then (rule 1 of `ChainState`).
///   A refunded earlier period of a subscription does not revoke a chain that has renewed since.
/// - **Entitlements**: `Ledger.entitlements(for:at:chains:app:)` (`Entitlements/EntitlementCalculation.swift`)
///   grants only states whose `ChainState.grantsAccess` is true, so a revoked chain grants nothing from the
///   revocation date on; a reversal restores it from the same date. For ownership, a revoked chain's owner is
///   not "actively auto-renewing" (`OwnershipRule.ownerIsActivelyAutoRenewing`).
/// - **Ledger entries**: `LedgerEntryDerivation.entries(for:on:app:)` (`Ledger/LedgerEntryDerivation.swift`)
///   derives, for each observed revocation, a `revoke` entry (reason `refund` or `family_sharing_revoked`),
///   or for a consumable a `debit` of its credits; for each reversal a `restore` (a consumable: a `credit`,
///   reason `revocation_reversed`) effective at the revocation's own date. Their idempotency keys
///   (`IdempotencyKey.revoke`, `.debit`, `.restore`, `.creditReversal`) contain the revocation date, so each
///   effect is recorded once however often it is observed.
///
/// ## In the database
/// There is no SQL view of revocation; the store writes the core's answers into columns
/// (`ChainRows.write` in SubLedgerStore's `Ledger/ChainRows.swift`, schema in `schema.sql`, made by `migrations/`):
/// `chains.state = 'revoked'` with `chains.revoked_at` (the active revocation's date), the
/// `chain_state_changes` history, `transactions.revocation_date` and `revocation_reason` (the active
/// revocation; `NULL` again after a reversal), every fact in `transactions.payload`, and the `ledger_entries`
/// above. Readers of those columns: the poll queue skips revoked chains (`index_chains_on_poll_due`,
/// `PollQueue`); SubLedgerReports' `EffectiveState.sql(at:)` keeps a stored `revoked` state as it is (only
/// lapses are re-derived in SQL), and `RefundsReport` lists the `revoke` and `debit` entries.
enum Revocation {
    /// Whether `version`'s revocation date marks an upgrade rather than a refund: Apple sets the date on the
    /// upgraded transaction and gives no revocation reason.
    static func isUpgradeMarker(_ version: Transaction) -> Bool {
        version.isUpgraded && version.revocationReason == nil
    }

    /// The date `version` is refunded or revoked at (Family Sharing included); `nil` when it carries no
    /// revocation date or only an upgrade's.
    static func date(of version: Transaction) -> Instant? {
        isUpgradeMarker(version) ? nil : version.revocationDate
    }
}
