/// An App Store Server Notification (V1 or V2), verified and decoded by the protocol module.
///
/// The ledger applies `transaction` and `renewalInfo` (or, for V1, `receipt`) with no submitter: they go
/// to the chain's current owner. `notificationType` and `subtype` are kept raw so new values Apple adds
/// are stored rather than rejected.
public struct ServerNotification: Hashable, Sendable, Codable {
    /// V2 `notificationUUID`; for V1, a stable id derived from the payload by the protocol module.
    public var notificationID: String
    public var version: Version
    /// `notificationType` (V2) or `notification_type` (V1), raw: `SUBSCRIBED`, `DID_RENEW`, `REFUND`, ...
    public var notificationType: String
    /// V2 `subtype`, raw: `INITIAL_BUY`, `GRACE_PERIOD`, `VOLUNTARY`, ...
    public var subtype: String?
    public var bundleID: String
    public var appAppleID: Int64?
    public var environment: StoreEnvironment
    /// V2 `signedDate`; for V1, the time it was received.
    public var signedDate: Instant
    public var transaction: Transaction?
    public var renewalInfo: RenewalInfo?
    /// V1 `unified_receipt`, normalized the same way as a `verifyReceipt` answer.
    public var receipt: ReceiptSnapshot?
    /// V2 `consumptionRequestReason` of a `CONSUMPTION_REQUEST`, raw (`UNINTENDED_PURCHASE`, `FULFILLMENT_ISSUE`,
    /// `UNSATISFIED_WITH_PURCHASE`, `LEGAL`, `OTHER`, or one Apple adds later): why the customer asked for a refund.
    public var consumptionRequestReason: String?
    /// V2 `externalPurchaseToken.externalPurchaseId` of an `EXTERNAL_PURCHASE_TOKEN`: the token Apple asks to be
    /// reported.
    public var externalPurchaseID: String?

    public enum Version: String, Hashable, Sendable, Codable {
        case v1
        case v2
    }

    public init(
        notificationID: String,
        version: Version,
        notificationType: String,
        subtype: String? = nil,
        bundleID: String,
        appAppleID: Int64? = nil,
        environment: StoreEnvironment,
        signedDate: Instant,
        transaction: Transaction? = nil,
        renewalInfo: RenewalInfo? = nil,
        receipt: ReceiptSnapshot? = nil,
        consumptionRequestReason: String? = nil,
        externalPurchaseID: String? = nil
    ) {
        self.notificationID = notificationID
        self.version = version
        self.notificationType = notificationType
        self.subtype = subtype
        self.bundleID = bundleID
        self.appAppleID = appAppleID
        self.environment = environment
        self.signedDate = signedDate
        self.transaction = transaction
        self.renewalInfo = renewalInfo
        self.receipt = receipt
        self.consumptionRequestReason = consumptionRequestReason
        self.externalPurchaseID = externalPurchaseID
    }
}
