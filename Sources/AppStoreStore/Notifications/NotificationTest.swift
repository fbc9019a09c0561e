import AppStore
import AppStoreClients
import Logging
import SubLedgerCore
import SubLedgerStore
import SubLedgerUseCases

/// Checks the whole notification path of one app and environment, end to end: asks Apple (Request a Test
/// Notification) to send a `TEST` notification to the URL set in App Store Connect, then watches both ends, Apple's
/// delivery attempts (Get Test Notification Status) and the notification's arrival in SubLedger's database, until
/// SubLedger has handled it or the checks run out. What an operator runs after pasting the URL into App Store Connect.
///
/// Apple is called through the `AppleGateway` (circuit breaker, call slots, `AppleCallMetrics`).
public struct NotificationTest: Sendable {
    let store: LedgerStore
    let catalog: CatalogStore
    let apple: AppleGateway
    let sleep: @Sendable (Duration) async throws -> Void

    /// - Parameter sleep: waits between two checks (`Task.sleep` in production; tests pass their own).
    public init(
        store: LedgerStore, catalog: CatalogStore, apple: AppleGateway,
        sleep: @escaping @Sendable (Duration) async throws -> Void = { try await Task.sleep(for: $0) }
    ) {
        self.store = store
        self.catalog = catalog
        self.apple = apple
        self.sleep = sleep
    }

    /// Requests a test notification for `bundleID` in `environment` and checks up to `checks` times, `interval`
    /// apart, until SubLedger has handled it.
    public func run(
        bundleID: String, environment: StoreEnvironment, checks: Int, interval: Duration
    ) async throws(NotificationTestError) -> NotificationTestReport {
        let app: StoredApp
        let client: AppStoreServerAPIClient
        do {
            guard let found = try await catalog.app(bundleID: bundleID) else {
                throw NotificationTestError("no app with bundle id \(bundleID) in the catalog")
            }
            app = found
            guard let configured = try apple.serverAPIClient(for: app, environment: environment) else {
                throw NotificationTestError(
                    "\(bundleID) has no App Store Server API credentials (server_api in the catalog): "
                        + "Apple's test notifications are requested through that API")
            }
            client = configured
        } catch let error as NotificationTestError {
            throw error
        } catch {
            throw NotificationTestError("\(error)")
        }

        let token = try await call(.requestTestNotification, "request a test notification") {
            () async throws(AppStoreServerAPIError) in try await client.requestTestNotification()
        }
        var report = NotificationTestReport(bundleID: bundleID, environment: environment, token: token)
        for check in 1...max(1, checks) {
            if check > 1 {
                do {
                    try await sleep(interval)
                } catch {
                    break
                }
            }
            report.checks = check
            let status = try await call(.testNotificationStatus, "read the test notification's status") {
                () async throws(AppStoreServerAPIError) in try await client.testNotificationStatus(token: token)
            }
            report.notificationUUID = status.notification.notificationUUID
            report.sendAttempts = status.sendAttempts
            if let uuid = status.notification.notificationUUID {
                do {
                    report.arrival = try await store.notificationHistory(appID: app.appID, notificationID: uuid)
                } catch {
                    throw NotificationTestError("cannot read SubLedger's stored notifications: \(error)")
                }
            }
            if report.verdict.isFinal { break }
        }
        return report
    }

    private func call<T: Sendable>(
        _ endpoint: AppleCallMetrics.Endpoint, _ what: String,
        _ body: () async throws(AppStoreServerAPIError) -> T
    ) async throws(NotificationTestError) -> T {
        do {
            return try await apple.callServerAPI(endpoint, body)
        } catch {
            switch error {
            case .notCalled(let retryAfter):
                throw NotificationTestError(
                    "could not \(what): Apple has been failing; try again in \(retryAfter.components.seconds) s")
            case .apple(let failure):
                throw NotificationTestError("Apple refused to \(what): \(failure)")
            }
        }
    }
}

/// Why a notification test could not run (not its verdict: that is `NotificationTestReport.verdict`).
public struct NotificationTestError: Error, Sendable, CustomStringConvertible {
    public let description: String

    public init(_ description: String) { self.description = description }
}

/// What a notification test saw at both ends.
public struct NotificationTestReport: Sendable, Hashable, CustomStringConvertible {
    /// The end state, as an operator reads it.
    public enum Verdict: Sendable, Hashable {
        /// Apple delivered it and SubLedger verified and recorded it.
        case delivered
        /// SubLedger stored it but refused it (status `invalid` or `quarantined`: a signature, bundle id or
        /// environment that does not match the catalog).
        case refused(status: String, error: String?)
        /// SubLedger stored it and has not finished handling it (`pending` or `retry`).
        case stored(status: String)
        /// Apple reports a successful delivery, but this database has no such notification: the URL reaches
        /// another deployment (or another database).
        case deliveredElsewhere
        /// Apple's attempts failed (the last one's result: `NO_RESPONSE`, `TIMED_OUT`, `SSL_ISSUE`, ...).
        case notDelivered(lastResult: String)
        /// Apple has not tried to send it yet.
        case notSent

        /// Whether watching longer cannot change it.
        var isFinal: Bool {
            switch self {
            case .delivered, .refused, .deliveredElsewhere: return true
            case .stored, .notDelivered, .notSent: return false
            }
        }

        /// Whether the path works end to end.
        public var isSuccess: Bool { self == .delivered }
    }

    public var bundleID: String
    public var environment: StoreEnvironment
    /// Apple's `testNotificationToken`.
    public var token: String
    /// The notification's `notificationUUID`, once Apple's status named it.
    public var notificationUUID: String?
    /// Apple's delivery attempts, oldest first.
    public var sendAttempts: [SendAttemptItem] = []
    /// The notification as SubLedger stored it; nil while it has not arrived.
    public var arrival: LedgerStore.InputHistory?
    /// How many times both ends were checked.
    public var checks = 0

    public init(bundleID: String, environment: StoreEnvironment, token: String) {
        self.bundleID = bundleID
        self.environment = environment
        self.token = token
    }

    public var verdict: Verdict {
        if let arrival {
            switch arrival.status {
            case "applied": return .delivered
            case "invalid", "quarantined": return .refused(status: arrival.status, error: arrival.lastError)
            default: return .stored(status: arrival.status)
            }
        }
        guard let last = sendAttempts.last else { return .notSent }
        if sendAttempts.contains(where: { $0.sendAttemptResult == "SUCCESS" }) { return .deliveredElsewhere }
        return .notDelivered(lastResult: last.sendAttemptResult ?? "unknown")
    }

    public var description: String {
        var lines = ["\(bundleID) \(environment.rawValue): test notification \(token)"]
        if let notificationUUID { lines.append("  notificationUUID: \(notificationUUID)") }
        if sendAttempts.isEmpty {
            lines.append("  Apple: no delivery attempt yet")
        } else {
            for attempt in sendAttempts {
                let date = attempt.attemptDate.map { RFC3339.format(Instant(millisecondsSince1970: $0)) }
                lines.append("  Apple: attempt at \(date ?? "?"): \(attempt.sendAttemptResult ?? "unknown")")
            }
        }
        if let arrival {
            let applied = arrival.appliedAt.map { RFC3339.format($0) }.map { ", handled at \($0)" } ?? ""
            lines.append(
                "  SubLedger: received at \(RFC3339.format(arrival.receivedAt)) as notification \(arrival.id), "
                    + "status \(arrival.status)\(applied)")
        } else {
            lines.append("  SubLedger: not received")
        }
        switch verdict {
        case .delivered:
            lines.append("verdict: delivered: Apple reached SubLedger, which verified and recorded the notification")
        case .refused(let status, let error):
            lines.append(
                "verdict: refused: SubLedger received it but marked it \(status)"
                    + (error.map { " (\($0))" } ?? "")
                    + "; check the app's bundle id, apple_app_id and environments in the catalog")
        case .stored(let status):
            lines.append("verdict: received, not handled yet (status \(status)); `subledger poll` handles it")
        case .deliveredElsewhere:
            lines.append(
                "verdict: delivered elsewhere: Apple delivered it, but not to this database; check that the URL in "
                    + "App Store Connect reaches this deployment")
        case .notDelivered(let result):
            lines.append(
                "verdict: not delivered: Apple's last attempt ended \(result); check the URL in App Store Connect, "
                    + "its TLS certificate, and that SubLedger answers on it")
        case .notSent:
            lines.append("verdict: not sent yet: Apple has not tried to deliver it; run the test again later")
        }
        return lines.joined(separator: "\n")
    }
}
