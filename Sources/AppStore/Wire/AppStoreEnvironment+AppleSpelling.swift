import SubLedgerCore

extension StoreEnvironment {
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

    /// Reads the spelling of signed data and the Server API exactly: `Production`, `Sandbox`, `Xcode` or
    /// `LocalTesting`, as Apple's App Store Server Library does.
    ///
    /// The receipt spellings (`PROD`, `ProductionSandbox`) and other cases (`sandbox`, `SANDBOX`) are not
    /// Apple's in a JWS; accepting them would accept payloads Apple's library refuses.
    public init?(signedDataSpelling: String) {
        switch signedDataSpelling {
        case "Production": self = .production
        case "Sandbox": self = .sandbox
        case "Xcode": self = .xcode
        case "LocalTesting": self = .localTesting
        default: return nil
        }
    }

    /// Whether the App Store signs this environment's data: `false` for Xcode's StoreKit testing and local
    /// testing, whose JWS are signed by a local certificate (or not at all) and cannot be verified.
    public var isSignedByTheAppStore: Bool {
        switch self {
        case .production, .sandbox: true
        case .xcode, .localTesting: false
        }
    }
}
