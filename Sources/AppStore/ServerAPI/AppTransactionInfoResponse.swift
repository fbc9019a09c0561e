// The JSON bodies of the App Store Server API, as Apple sends them (signed items still encoded).
// `AppStoreServerAPIClient` (in AppStoreClients) verifies every signed item before returning anything.

/// Apple's `AppTransactionInfoResponse` (Get App Transaction Info, App Store Server API 1.17).
public struct AppTransactionInfoResponse: Codable, Hashable, Sendable {
    /// Apple's `signedAppTransactionInfo`: the customer's `AppTransaction`, a JWS (`JWSAppTransaction`).
    public var signedAppTransactionInfo: String?

    /// Creates a body.
    public init(signedAppTransactionInfo: String? = nil) {
        self.signedAppTransactionInfo = signedAppTransactionInfo
    }
}
