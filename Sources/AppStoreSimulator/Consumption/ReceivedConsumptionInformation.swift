/// One Send Consumption Information call the simulator received, with what it answered: what tests read
/// back through `GET /control/consumption` to check SubLedger's answers field by field.
public struct ReceivedConsumptionInformation: Sendable, Codable, Hashable {
    public var bundleID: String
    /// `Production` or `Sandbox`.
    public var environment: String
    /// `v1` or `v2`.
    public var version: String
    /// The transaction id in the path.
    public var transactionID: String
    /// The body as received.
    public var body: String
    /// The status answered: 202 when accepted.
    public var status: Int
    /// Apple's `errorCode` when refused.
    public var errorCode: Int?
    /// Why it was refused, in Apple's words.
    public var errorMessage: String?
    /// Simulated time of the call, milliseconds since 1970.
    public var receivedAt: Int64

    /// Whether Apple accepted it.
    public var accepted: Bool { status == 202 }
}
