/// Apple's `MassExtendRenewalDateStatusResponse`: the answer of Get Status of Subscription Renewal Date
/// Extensions (`GET /inApps/v1/subscriptions/extend/mass/{productId}/{requestIdentifier}`).
public struct MassExtendRenewalDateStatusResponse: Codable, Hashable, Sendable {
    /// Apple's `requestIdentifier`.
    public var requestIdentifier: String?
    /// Apple's `complete`: whether Apple finished processing the request.
    public var complete: Bool?
    /// Apple's `completeDate`: when it finished, milliseconds since 1970.
    public var completeDate: Int64?
    /// Apple's `succeededCount`: subscriptions extended.
    public var succeededCount: Int64?
    /// Apple's `failedCount`: subscriptions that could not be extended.
    public var failedCount: Int64?

    /// Creates an answer.
    public init(
        requestIdentifier: String?, complete: Bool?, completeDate: Int64?, succeededCount: Int64?,
        failedCount: Int64?
    ) {
        self.requestIdentifier = requestIdentifier
        self.complete = complete
        self.completeDate = completeDate
        self.succeededCount = succeededCount
        self.failedCount = failedCount
    }
}
