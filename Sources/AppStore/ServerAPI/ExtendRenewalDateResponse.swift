/// Apple's `ExtendRenewalDateResponse`: the answer of Extend a Subscription Renewal Date.
public struct ExtendRenewalDateResponse: Codable, Hashable, Sendable {
    /// Apple's `originalTransactionId`.
    public var originalTransactionID: String?
    /// Apple's `webOrderLineItemId`: the subscription period the extension applied to.
    public var webOrderLineItemID: String?
    /// Apple's `success`: whether the renewal date was extended.
    public var success: Bool?
    /// Apple's `effectiveDate`: the new renewal date, milliseconds since 1970.
    public var effectiveDate: Int64?

    enum CodingKeys: String, CodingKey {
        case originalTransactionID = "originalTransactionId"
        case webOrderLineItemID = "webOrderLineItemId"
        case success
        case effectiveDate
    }

    /// Creates an answer.
    public init(originalTransactionID: String?, webOrderLineItemID: String?, success: Bool?, effectiveDate: Int64?) {
        self.originalTransactionID = originalTransactionID
        self.webOrderLineItemID = webOrderLineItemID
        self.success = success
        self.effectiveDate = effectiveDate
    }
}
