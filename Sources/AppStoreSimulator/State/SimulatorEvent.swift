import SubLedgerCore

/// Something that happened to an Apple ID's purchases, from which a server notification is made.
struct SimulatorEvent: Sendable {
    /// Apple's V2 `notificationType`.
    var type: String
    /// Apple's V2 `subtype`.
    var subtype: String?
    /// Whose purchase.
    var key: AccountAppKey
    /// The transaction the notification carries.
    var transactionID: String?
    /// The environment of a notification about no account (a `TEST`); otherwise the account's.
    var environment: StoreEnvironment? = nil
    /// A `CONSUMPTION_REQUEST`'s `consumptionRequestReason`.
    var consumptionRequestReason: String? = nil
    /// An `EXTERNAL_PURCHASE_TOKEN`'s token, by `externalPurchaseId`.
    var externalPurchaseID: String? = nil
}
