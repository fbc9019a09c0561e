/// The environment a transaction or notification belongs to, in either store.
///
/// Apple spells these `Production` / `Sandbox` (JWS, Server API) and `Production` / `Sandbox` or
/// `PROD` / `Sandbox` (legacy receipts and V1 notifications); the protocol module maps all spellings here.
/// Google Play has production purchases and license testers' test purchases (`testPurchase`), which are
/// `sandbox` here: a deployment accepts them only where its catalog lists `Sandbox`.
public enum StoreEnvironment: String, Hashable, Sendable, Codable, CaseIterable {
    case production = "Production"
    case sandbox = "Sandbox"
    /// StoreKit testing in Xcode (App Store only); never accepted by a production deployment.
    case xcode = "Xcode"
    /// StoreKit local testing (App Store only).
    case localTesting = "LocalTesting"
}
