import SubLedgerCore
import SubLedgerUseCases

/// What one recovery covers: every app and environment with Server API credentials, or the one named, from
/// each cursor (less the margin) or from `since`.
public struct RecoveryRequest: Sendable, Hashable {
    /// Fetch from here instead of from the cursor (the cursor moves only if this reaches back to it).
    public var since: Instant?
    /// Only this app.
    public var bundleID: String?
    /// Only this environment.
    public var environment: StoreEnvironment?

    public init(since: Instant? = nil, bundleID: String? = nil, environment: StoreEnvironment? = nil) {
        self.since = since
        self.bundleID = bundleID
        self.environment = environment
    }

    /// Reads the command line's `--since`, `--app` and `--environment` at `now`: `since` must be RFC 3339,
    /// not in the future and within Apple's retention of notification history (`retention` before now).
    public static func parse(
        since: String?, bundleID: String?, environment: String?, now: Instant,
        retention: Duration = NotificationRecovery.Configuration.appleRetention
    ) throws(RecoveryError) -> RecoveryRequest {
        var request = RecoveryRequest(bundleID: bundleID)
        if let text = since {
            guard let instant = Instant(acceptedRFC3339: text) else {
                throw RecoveryError(
                    .invalidSince,
                    "--since must be an RFC 3339 time such as 2026-11-01T00:00:00Z, not '\(text.prefix(64))'")
            }
            guard instant <= now else {
                throw RecoveryError(
                    .sinceInFuture,
                    "--since \(text) is in the future; Apple's history ends now (\(RFC3339.format(now)))")
            }
            let earliest = now.adding(duration: .zero - retention)
            guard instant >= earliest else {
                throw RecoveryError(
                    .sinceBeyondRetention,
                    "--since \(text) is older than the 180 days Apple keeps notification history; the earliest is \(RFC3339.format(earliest))"
                )
            }
            request.since = instant
        }
        if let bundleID, bundleID.isEmpty || bundleID.utf8.count > 255 {
            throw RecoveryError(.unknownApp, "--app must be a bundle id")
        }
        if let raw = environment {
            guard let parsed = StoreEnvironment(appleSpelling: raw),
                NotificationRecovery.historyEnvironments.contains(parsed)
            else {
                throw RecoveryError(
                    .invalidEnvironment, "--environment must be Production or Sandbox, not '\(raw.prefix(32))'")
            }
            request.environment = parsed
        }
        return request
    }
}
