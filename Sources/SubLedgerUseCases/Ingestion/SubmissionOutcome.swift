import SubLedgerCore

/// What one submission (an app receipt or a signed transaction) did, told from the submitting account's side.
public struct SubmissionOutcome: Sendable {
    /// The stored submission's row id.
    public var inputID: Int64
    public var environment: StoreEnvironment
    public var outcomes: [TransactionOutcome]
    public var ignored: [IgnoredTransaction]
    public var entitlements: [Entitlement]
    /// The account the submission was applied for: the submitter, or the account it was merged into; the answer
    /// speaks for this account (nil when the submission named none).
    public var account: AccountID? = nil

    /// For a store module's port.
    package init(
        inputID: Int64, environment: StoreEnvironment, outcomes: [TransactionOutcome],
        ignored: [IgnoredTransaction], entitlements: [Entitlement], account: AccountID? = nil
    ) {
        self.inputID = inputID
        self.environment = environment
        self.outcomes = outcomes
        self.ignored = ignored
        self.entitlements = entitlements
        self.account = account
    }
}
