/// Where Apple is and whom to trust: production values by default, appstore-sim's in tests and quick start.
public struct AppleConfiguration: Sendable {
    /// verifyReceipt's production URL. Default Apple's.
    public var verifyReceiptProductionURL: String
    /// verifyReceipt's sandbox URL (21007 answers are retried there). Default Apple's.
    public var verifyReceiptSandboxURL: String
    /// Extra trusted roots for signed data (DER or PEM files), e.g. appstore-sim's exported root. Apple Root
    /// CA G3 is always trusted (strict RFC 5280); extra roots are checked without the AKI/SKI linkage rule
    /// that Apple's own test certificates do not follow.
    public var extraRootPaths: [String]
    /// Whether Apple Root CA G3 is trusted. Default true; tests against appstore-sim may turn it off.
    public var trustAppleRoot: Bool
    /// How long one call to Apple may take. Default 30 s.
    public var timeout: Duration
    /// App Store Server API base URL for production; `nil`: Apple's.
    public var serverAPIProductionURL: String?
    /// App Store Server API base URL for the sandbox; `nil`: Apple's.
    public var serverAPISandboxURL: String?

    public init(
        verifyReceiptProductionURL: String = "https://buy.itunes.apple.com/verifyReceipt",
        verifyReceiptSandboxURL: String = "https://sandbox.itunes.apple.com/verifyReceipt",
        extraRootPaths: [String] = [],
        trustAppleRoot: Bool = true,
        timeout: Duration = .seconds(30),
        serverAPIProductionURL: String? = nil,
        serverAPISandboxURL: String? = nil
    ) {
        self.verifyReceiptProductionURL = verifyReceiptProductionURL
        self.verifyReceiptSandboxURL = verifyReceiptSandboxURL
        self.extraRootPaths = extraRootPaths
        self.trustAppleRoot = trustAppleRoot
        self.timeout = timeout
        self.serverAPIProductionURL = serverAPIProductionURL
        self.serverAPISandboxURL = serverAPISandboxURL
    }
}
