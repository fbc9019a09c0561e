// The JSON bodies of the App Store Server API, as Apple sends them (signed items still encoded).
// `AppStoreServerAPIClient` (in AppStoreClients) verifies every signed item before returning anything.

/// Apple's error body `{"errorCode": ..., "errorMessage": ...}`.
public struct ServerAPIErrorBody: Codable, Hashable, Sendable {
    /// Apple's `errorCode`.
    public var errorCode: Int?
    /// Apple's `errorMessage`.
    public var errorMessage: String?
}
