/// What `POST /control/transactions/{id}/consumption-request` did: the transaction asked about and the
/// UUIDs of the CONSUMPTION_REQUEST notifications it sent.
public struct ConsumptionRequestResult: Sendable, Codable, Hashable {
    public var transactionID: String
    public var notificationUUIDs: [String]
}
