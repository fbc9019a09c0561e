import SubLedgerCore

/// What a device holds after a control action: the app receipt, the affected transaction signed, and ids.
public struct ActionResult: Sendable, Codable, Hashable {
    /// The Apple ID.
    public var appleID: String
    /// The app.
    public var bundleID: String
    /// The Apple ID's environment.
    public var environment: StoreEnvironment
    /// The affected product.
    public var productID: String?
    /// The affected (or newly created) transaction.
    public var transactionID: String?
    /// Its chain's original transaction id.
    public var originalTransactionID: String?
    /// Its web order line item id (subscriptions).
    public var webOrderLineItemID: String?
    /// The customer's order id (Look Up Order ID).
    public var orderID: String?
    /// The base64 PKCS#7 app receipt as the device now holds it.
    public var receiptData: String
    /// An iOS 6 style transaction receipt, when the purchase asked for one.
    public var legacyReceiptData: String?
    /// The StoreKit 2 JWS of the affected transaction.
    public var signedTransaction: String?
    /// The JWS renewal info of the affected chain.
    public var signedRenewalInfo: String?
    /// The `applicationUsername` the device's transaction shows (empty under the empty-username bug).
    public var applicationUsername: String?
    /// The pending Ask to Buy request id.
    public var askToBuyRequestID: String?
    /// The subscription status after the action (1 active, 2 expired, 3 billing retry, 4 grace, 5 revoked).
    public var subscriptionStatus: Int?
    /// Notifications created by the action (and by renewals it triggered).
    public var notificationUUIDs: [String]
    /// The simulated time of the action, milliseconds since 1970.
    public var now: Int64
}
