import SubLedgerCore

extension AppStoreEnvironment {
    /// Reads any of Apple's spellings: `Production`, `PROD`, `Sandbox`, `SANDBOX`, `Xcode`, `LocalTesting`.
    ///
    /// Legacy receipts and V1 notifications say `PROD`; JWS payloads and the Server API say `Production`.
    /// Unknown spellings give `nil` so the caller decides whether that is an error.
    public init?(appleSpelling: String) {
        switch appleSpelling.lowercased() {
        case "production", "prod": self = .production
        case "sandbox", "productionsandbox": self = .sandbox
        case "xcode": self = .xcode
        case "localtesting", "local_testing": self = .localTesting
        default: return nil
        }
    }
}
