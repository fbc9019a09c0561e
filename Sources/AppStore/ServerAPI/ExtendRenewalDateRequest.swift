/// Apple's `ExtendRenewalDateRequest`: the body of Extend a Subscription Renewal Date
/// (`PUT /inApps/v1/subscriptions/extend/{originalTransactionId}`).
public struct ExtendRenewalDateRequest: Codable, Hashable, Sendable {
    /// Apple's `extendByDays`: 1 to 90.
    public var extendByDays: Int
    /// Apple's `extendReasonCode`: 0 to 3 (`ExtendReasonCode`).
    public var extendReasonCode: Int
    /// Apple's `requestIdentifier`: chosen by the caller, unique per request (at most 128 characters).
    public var requestIdentifier: String

    /// Creates a request body.
    public init(extendByDays: Int, extendReasonCode: ExtendReasonCode, requestIdentifier: String) {
        self.extendByDays = extendByDays
        self.extendReasonCode = extendReasonCode.rawValue
        self.requestIdentifier = requestIdentifier
    }
}
