import AppStore
import AppStoreSimulator
import AppStoreStore
import Foundation
import SubLedgerCore
import SubLedgerStore
import SubLedgerTestSupport
import SubLedgerUseCases
import Synchronization
import Testing

/// `subledger notifications test` (`NotificationTest`): Apple (appstore-sim) is asked for a `TEST` notification
/// and both ends are read: Apple's delivery attempts and the notification's arrival in SubLedger's database.
@Suite struct NotificationTestEndToEndTests {
    typealias E = EndToEndHarness

    /// Counts the waits between checks instead of waiting.
    final class Waits: Sendable {
        let count = Mutex(0)
        var sleep: @Sendable (Duration) async throws -> Void { { _ in self.count.withLock { $0 += 1 } } }
    }

    @Test func aTestNotificationThatReachesSubLedgerIsDelivered() async throws {
        try await E.run { e in
            try await e.giveServerAPICredentials()
            let waits = Waits()
            let test = NotificationTest(
                store: e.service.store, catalog: e.service.catalog, apple: try e.freshGateway(), sleep: waits.sleep)
            let report = try await test.run(
                bundleID: E.bundleID, environment: .production, checks: 30, interval: .seconds(1))
            #expect(report.verdict == .delivered, "\(report)")
            #expect(report.sendAttempts.map(\.sendAttemptResult) == ["SUCCESS"])
            let uuid = try #require(report.notificationUUID)
            #expect(report.arrival?.status == "applied")
            let stored = try await e.service.pool.query(
                "SELECT notification_type, status FROM notifications WHERE notification_id = \(uuid)"
            ).single()
            #expect(try stored.decode(String?.self, at: 0) == "TEST")
            // It stopped checking once SubLedger had handled it.
            #expect(waits.count.withLock { $0 } == report.checks - 1)
            #expect(report.description.contains("verdict: delivered"))
        }
    }

    @Test func aURLThatDoesNotReachSubLedgerIsNamedInTheVerdict() async throws {
        try await E.run { e in
            try await e.giveServerAPICredentials()
            // The URL in "App Store Connect" answers 404: Apple's attempt fails, SubLedger never sees it.
            await e.loseNotifications()
            let waits = Waits()
            let test = NotificationTest(
                store: e.service.store, catalog: e.service.catalog, apple: try e.freshGateway(), sleep: waits.sleep)
            let report = try await test.run(
                bundleID: E.bundleID, environment: .production, checks: 3, interval: .seconds(1))
            guard case .notDelivered(let result) = report.verdict else {
                Issue.record("verdict \(report.verdict)")
                return
            }
            #expect(result != "SUCCESS")
            #expect(report.arrival == nil)
            #expect(report.checks == 3)
            #expect(waits.count.withLock { $0 } == 2)
            #expect(report.description.contains("SubLedger: not received"))
        }
    }

    @Test func anAppWithoutServerAPICredentialsOrUnknownIsAClearError() async throws {
        try await E.run { e in
            let test = NotificationTest(
                store: e.service.store, catalog: e.service.catalog, apple: try e.freshGateway(), sleep: { _ in })
            await #expect(throws: NotificationTestError.self) {
                _ = try await test.run(bundleID: E.bundleID, environment: .production, checks: 1, interval: .seconds(1))
            }
            do {
                _ = try await test.run(
                    bundleID: "com.example.none", environment: .production, checks: 1, interval: .seconds(1))
                Issue.record("an unknown app was tested")
            } catch {
                #expect("\(error)".contains("no app with bundle id com.example.none"))
            }
        }
    }
}
