import AppStore
import AppStoreSimulator
import Foundation
import HTTPTestSupport
import SubLedgerCore
import Synchronization
import Testing

/// Notifications of different chains due at once are posted concurrently; an attempt to a URL that refuses
/// connections fails at once as `NO_RESPONSE` instead of waiting for the attempt's timeout.
@Suite struct NotificationDeliveryConcurrencyTests {
    /// How many requests a receiver holds open at once, and the most it ever held.
    final class Gauge: Sendable {
        private let state = Mutex((seen: 0, open: 0, widest: 0))

        var widest: Int { state.withLock { $0.widest } }
        var open: Int { state.withLock { $0.open } }

        /// Counts a request in; answers whether it is one of the first `skipped` (answered at once).
        func arrive(skipped: Int) -> Bool {
            state.withLock { state in
                state.seen += 1
                guard state.seen > skipped else { return true }
                state.open += 1
                state.widest = max(state.widest, state.open)
                return false
            }
        }

        func leave() { state.withLock { $0.open -= 1 } }
    }

    /// A receiver that holds each request after the first `skipped` until `width` requests are open at once (or,
    /// when they never are, for at most 2 s, well under the simulator's 5 s attempt timeout), then answers 200.
    final class GatheringReceiver: Sendable {
        let gauge = Gauge()
        let server: StubHTTPServer

        var mostAtOnce: Int { gauge.widest }
        var url: String { server.baseURL + "/notifications" }
        var received: Int { server.requests.count }

        init(width: Int, gatherFirstAfter skipped: Int) async throws {
            let gauge = self.gauge
            server = try await StubHTTPServer.start { _ in
                if gauge.arrive(skipped: skipped) { return .empty(status: 200) }
                for _ in 0..<40 where gauge.widest < width {
                    try? await Task.sleep(for: .milliseconds(50))
                }
                gauge.leave()
                return .empty(status: 200)
            }
        }
    }

    @Test func renewalsOfDifferentChainsArePostedConcurrently() async throws {
        let receiver = try await GatheringReceiver(width: 3, gatherFirstAfter: 3)
        defer { Task { await receiver.server.shutdown() } }
        try await SimulatorFixture.with(notificationURL: receiver.url) { fixture in
            for name in ["a", "b", "c"] {
                _ = try await fixture.createAppleID("\(name)@example.com")
                _ = try await fixture.buy("\(name)@example.com", "pro.monthly")
            }
            #expect(receiver.received == 3)
            // The three chains renew in one advance: their DID_RENEW notifications are due together.
            _ = try await fixture.advance(days: 32)
            #expect(receiver.received == 6)
            #expect(receiver.mostAtOnce == 3)
            let notifications = fixture.simulator.control.notifications()
            let renewals = notifications.filter { $0.notificationType == "DID_RENEW" }
            #expect(renewals.count == 3)
            #expect(renewals.allSatisfy { $0.delivered && $0.attempts.map(\.sendAttemptResult) == ["SUCCESS"] })
        }
    }

    @Test func aRefusedConnectionIsNoResponseAndEveryChainIsTried() async throws {
        // Port 9 (discard) on loopback: nothing listens there and no test binds it (a port closed a moment ago could
        // be taken by another test's server before the deliveries start), so every connection is refused.
        let url = "http://127.0.0.1:9/notifications"
        try await SimulatorFixture.with(notificationURL: url) { fixture in
            for name in ["d", "e", "f", "g"] {
                _ = try await fixture.createAppleID("\(name)@example.com")
                _ = try await fixture.buy("\(name)@example.com", "pro.monthly")
            }
            _ = try await fixture.advance(days: 32)
            let notifications = fixture.simulator.control.notifications()
            #expect(notifications.count == 8)
            for notification in notifications {
                #expect(!notification.delivered)
                #expect(!notification.attempts.isEmpty)
                #expect(notification.attempts.allSatisfy { $0.sendAttemptResult == "NO_RESPONSE" })
            }
        }
    }
}
