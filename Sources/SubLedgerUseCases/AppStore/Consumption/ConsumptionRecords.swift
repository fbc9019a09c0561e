import SubLedgerCore
import SubLedgerStore

/// What an app states for Apple's consumption requests (docs/guides/operate.md, "Apple asks about a refund"): the
/// customer's consent and a purchase's usage, kept until `ConsumptionAnswerSender` answers Apple.
public struct ConsumptionRecords: Sendable {
    let store: ConsumptionStore

    public init(store: ConsumptionStore) {
        self.store = store
    }

    /// Records `account`'s consent; answers the record's id.
    public func recordConsent(_ consent: ConsumptionConsent, account: AccountID, app: AppDirectory.App)
        async throws -> Int64
    {
        try await store.recordConsent(consent, account: account, app: app)
    }

    /// Records the usage of the purchase `transactionID`; answers the record's id.
    public func recordUsage(
        _ usage: ConsumptionUsage, transactionID: String, account: AccountID, app: AppDirectory.App
    ) async throws -> Int64 {
        try await store.recordUsage(usage, transactionID: transactionID, account: account, app: app)
    }
}
