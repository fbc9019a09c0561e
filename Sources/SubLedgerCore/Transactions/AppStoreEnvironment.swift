/// The App Store environment a transaction or notification belongs to.
///
/// Apple spells these `Production` / `Sandbox` (JWS, Server API) and `Production` / `Sandbox` or
/// `PROD` / `Sandbox` (legacy receipts and V1 notifications); the protocol module maps all spellings here.
public enum AppStoreEnvironment: String, Hashable, Sendable, Codable, CaseIterable {
    case production = "Production"
    case sandbox = "Sandbox"
    /// StoreKit testing in Xcode; never accepted by a production deployment.
    case xcode = "Xcode"
    case localTesting = "LocalTesting"
}
