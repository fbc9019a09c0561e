import SubLedgerCore

/// Why the way to Apple cannot be used for an app now: its configuration, or a circuit breaker that is open.
///
/// `code` is stable and machine-readable; `description` never contains keys, receipts or tokens.
public enum AppleGatewayError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The app does not accept `environment`.
    case environmentNotAllowed(StoreEnvironment, bundleID: String)
    /// The app cannot verify `environment`'s signed data (e.g. no `apple_app_id` for Production).
    case appMisconfigured(bundleID: String, environment: StoreEnvironment, reason: String)
    /// Apple kept failing: calls are refused until `retryAfter` has passed (see `AppleCircuitBreaker`).
    case circuitOpen(retryAfter: Duration)

    public var code: String {
        switch self {
        case .environmentNotAllowed: "environment_not_allowed"
        case .appMisconfigured: "app_misconfigured"
        case .circuitOpen: "apple_circuit_open"
        }
    }

    public var description: String {
        switch self {
        case .environmentNotAllowed(let environment, let bundleID):
            "\(environment.rawValue) is not an accepted environment of \(bundleID)"
        case .appMisconfigured(let bundleID, let environment, let reason):
            "\(bundleID) cannot verify \(environment.rawValue) data: \(reason)"
        case .circuitOpen(let retryAfter):
            "Apple keeps failing; calls are refused for \(retryAfter.retryAfterSeconds) s"
        }
    }
}
