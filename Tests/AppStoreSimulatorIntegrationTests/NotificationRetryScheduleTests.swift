import AppStore
import AppStoreSimulator
import Foundation
import SubLedgerCore
import Testing

/// Apple retries a failed notification 1, 12, 24, 48 and 72 hours after the first attempt; the simulator fires
/// each retry the clock passes, however far one advance moves it.
@Suite struct NotificationRetryScheduleTests {
    static let hour: Int64 = 3_600_000

    static func attempts(_ fixture: SimulatorFixture, since start: Int64) async throws -> [SendAttemptItem] {
        let page = try await fixture.serverAPIClient().notificationHistory(
            NotificationHistoryRequest(startDate: start, endDate: start + 86_400_000))
        return try #require(page.items.first?.sendAttempts)
    }

    @Test func oneAdvanceOfThreeDaysFiresEveryRetryEachAtItsTime() async throws {
        let receiver = try await NotificationReceiver.start(statuses: Array(repeating: 500, count: 20))
        defer { Task { await receiver.shutdown() } }
        try await SimulatorFixture.with(notificationURL: receiver.url) { fixture in
            _ = try await fixture.createAppleID("schedule@example.com")
            let bought = try await fixture.buy("schedule@example.com", "lifetime")
            #expect(receiver.bodies.count == 1)
            _ = try await fixture.advance(days: 3)
            #expect(receiver.bodies.count == 6)

            let attempts = try await Self.attempts(fixture, since: bought.now - 1000)
            #expect(attempts.count == 6)
            let first = try #require(attempts.first?.attemptDate)
            #expect(attempts.compactMap(\.attemptDate).map { ($0 - first) / Self.hour } == [0, 1, 12, 24, 48, 72])

            // Abandoned after the last retry: a later advance sends nothing more.
            _ = try await fixture.advance(days: 10)
            #expect(receiver.bodies.count == 6)
        }
    }

    @Test func advancesInSmallStepsFireTheSameRetries() async throws {
        let receiver = try await NotificationReceiver.start(statuses: Array(repeating: 500, count: 20))
        defer { Task { await receiver.shutdown() } }
        try await SimulatorFixture.with(notificationURL: receiver.url) { fixture in
            _ = try await fixture.createAppleID("steps@example.com")
            let bought = try await fixture.buy("steps@example.com", "lifetime")
            for _ in 0..<8 { _ = try await fixture.advance(hours: 10) }
            #expect(receiver.bodies.count == 6)
            let attempts = try await Self.attempts(fixture, since: bought.now - 1000)
            #expect(attempts.count == 6)
        }
    }
}
