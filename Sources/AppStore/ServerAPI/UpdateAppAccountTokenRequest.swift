/// The body of Set App Account Token (`PUT /inApps/v1/transactions/{originalTransactionId}/appAccountToken`):
/// the UUID that names the customer's account on the app's server.
public struct UpdateAppAccountTokenRequest: Codable, Hashable, Sendable {
    public var appAccountToken: String

    public init(appAccountToken: String) {
        self.appAccountToken = appAccountToken
    }
}
