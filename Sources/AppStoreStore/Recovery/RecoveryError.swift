import SubLedgerUseCases

/// Why a notification recovery was refused before it started, or could not go on.
///
/// `code` is stable and machine-readable; `message` is for people and never contains keys or tokens.
public struct RecoveryError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kinds of refusal, each with its stable code.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// `--since` is not an RFC 3339 time.
        case invalidSince = "invalid_since"
        /// `--since` lies after now: there is no history there yet.
        case sinceInFuture = "since_in_future"
        /// `--since` lies before the oldest notification Apple keeps (180 days).
        case sinceBeyondRetention = "since_beyond_retention"
        /// `--app` names no configured app.
        case unknownApp = "unknown_app"
        /// `--environment` is not one Apple keeps a history for (Production, Sandbox), or not the app's.
        case invalidEnvironment = "invalid_environment"
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code.rawValue): \(message)" }
}
