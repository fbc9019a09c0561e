/// Which version of Apple's Send Consumption Information endpoint an app's answers go to.
public enum ConsumptionEndpointVersion: String, Hashable, Sendable, Codable, CaseIterable {
    /// `PUT /inApps/v2/transactions/consumption/{transactionId}` with a `ConsumptionRequest` (Apple's current one).
    case v2
    /// `PUT /inApps/v1/transactions/consumption/{transactionId}` with a `ConsumptionRequestV1`.
    case v1
}
