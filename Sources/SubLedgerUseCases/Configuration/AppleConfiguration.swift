import SubLedgerStore

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
    /// How long one verification with Apple may take in all: time waiting for a connection, connecting, and
    /// both calls of a sandbox receipt (production, then sandbox) included. Default 30 s.
    public var timeout: Duration
    /// How long connecting to Apple may take before the call fails (fail fast when Apple refuses
    /// connections). Default 3 s.
    public var connectTimeout: Duration
    /// Calls to Apple at once (and connections kept open to each of Apple's hosts): a call beyond it waits for a
    /// free one up to `callSlotWait` (see `AppleCallSlots`). Default 128.
    public var maximumConnections: Int
    /// How long a call waits for a free one of the `maximumConnections` before the request is answered 503 with
    /// `Retry-After`. Default 20 s.
    public var callSlotWait: Duration
    /// Consecutive failures to reach Apple after which calls are refused at once (503 with `Retry-After`)
    /// for `circuitBreakerCooldown`; 0 turns the circuit breaker off. Default 5.
    public var circuitBreakerThreshold: Int
    /// How long the open circuit breaker refuses calls before it lets one through. Default 30 s.
    public var circuitBreakerCooldown: Duration
    /// How stored inputs that could not be verified or applied are retried, and when they are quarantined.
    public var retry: StoredInputRetry
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
        connectTimeout: Duration = .seconds(3),
        maximumConnections: Int = 128,
        callSlotWait: Duration = .seconds(20),
        circuitBreakerThreshold: Int = 5,
        circuitBreakerCooldown: Duration = .seconds(30),
        retry: StoredInputRetry = StoredInputRetry(),
        serverAPIProductionURL: String? = nil,
        serverAPISandboxURL: String? = nil
    ) {
        self.verifyReceiptProductionURL = verifyReceiptProductionURL
        self.verifyReceiptSandboxURL = verifyReceiptSandboxURL
        self.extraRootPaths = extraRootPaths
        self.trustAppleRoot = trustAppleRoot
        self.timeout = timeout
        self.connectTimeout = connectTimeout
        self.maximumConnections = maximumConnections
        self.callSlotWait = callSlotWait
        self.circuitBreakerThreshold = circuitBreakerThreshold
        self.circuitBreakerCooldown = circuitBreakerCooldown
        self.retry = retry
        self.serverAPIProductionURL = serverAPIProductionURL
        self.serverAPISandboxURL = serverAPISandboxURL
    }
}
