import SubLedgerCore
import SubLedgerStore
import SubLedgerUseCases

/// What `RenewalExtensions.extend` did: Apple's answer as recorded, and the chain as the ledger now has it.
public struct SingleExtensionOutcome: Sendable, Hashable {
    /// The recorded extension (`succeeded`, with Apple's `effectiveDate`).
    public var record: RenewalExtensionRecord
    /// The chain's expiry in the ledger after the extension was applied.
    public var expiresAt: Instant?
    /// Whether the chain's new state was fetched from Apple and applied now (else the `RENEWAL_EXTENDED`
    /// notification or the renewal job will apply it).
    public var applied: Bool
    /// This request identifier had succeeded before: nothing was asked of Apple again.
    public var repeated: Bool
}
