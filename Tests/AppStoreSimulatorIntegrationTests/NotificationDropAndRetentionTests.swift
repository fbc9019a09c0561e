import AppStore
import AppStoreClients
import AppStoreSimulator
import Foundation
import SubLedgerCore
import Testing

/// The drop fault (notifications never delivered, still in Get Notification History) and the history's
/// 180-day retention with Apple's refusals.
@Suite struct NotificationDropAndRetentionTests {
    @Test func droppedNotificationsAreNeverPostedButAreInTheHistory() async throws {
        let receiver = try await NotificationReceiver.start()
        defer { Task { await receiver.shutdown() } }
        try await SimulatorFixture.with(notificationURL: receiver.url) { fixture in
            _ = try await fixture.createAppleID("drop@example.com")
            let delivered = try await fixture.buy("drop@example.com", "pro.monthly")
            #expect(receiver.bodies.count == 1)

            let settings = try await fixture.controlClient.call(
                "PATCH", "/control/notifications/settings", body: NotificationSettingsUpdate(drop: true),
                as: NotificationSettings.self)
            #expect(settings.drop)
            _ = try await fixture.action(
                "/control/subscriptions/\(delivered.originalTransactionID!)/auto-renew",
                body: AutoRenewRequest(enabled: false))
            _ = try await fixture.buy("drop@example.com", "coins")
            _ = try await fixture.buy("drop@example.com", "lifetime")
            // Past every retry Apple would have made: still nothing posted.
            let clock = try await fixture.advance(days: 4)
            #expect(receiver.bodies.count == 1)
            _ = try await fixture.controlClient.call(
                "PATCH", "/control/notifications/settings", body: NotificationSettingsUpdate(drop: false),
                as: NotificationSettings.self)
            #expect(receiver.bodies.count == 1)

            let summaries = fixture.simulator.control.notifications()
            let dropped = summaries.filter { $0.dropped == true }
            #expect(
                Array(dropped.map(\.notificationType).prefix(3))
                    == ["DID_CHANGE_RENEWAL_STATUS", "ONE_TIME_CHARGE", "ONE_TIME_CHARGE"])
            #expect(summaries.filter { $0.dropped != true }.count == 1)
            #expect(dropped.allSatisfy { $0.attempts.isEmpty && $0.nextAttemptAt == nil && !$0.delivered })

            let client = try fixture.serverAPIClient()
            let page = try await client.notificationHistory(
                NotificationHistoryRequest(startDate: delivered.now - 1_000, endDate: clock.now + 1))
            #expect(page.items.map(\.notification.notificationUUID) == summaries.map(\.notificationUUID))
            #expect(page.items.allSatisfy { !$0.signedPayload.isEmpty })
            let failures = try await client.notificationHistory(
                NotificationHistoryRequest(
                    startDate: delivered.now - 1_000, endDate: clock.now + 1, onlyFailures: true))
            #expect(failures.items.map(\.notification.notificationUUID) == dropped.map(\.notificationUUID))
        }
    }

    @Test func historyKeeps180DaysAndRefusesAnOlderStartOrAnEndBeforeTheStart() async throws {
        try await SimulatorFixture.with { fixture in
            _ = try await fixture.createAppleID("old@example.com")
            let bought = try await fixture.buy("old@example.com", "lifetime")
            let clock = try await fixture.advance(days: 200)
            let client = try fixture.serverAPIClient()
            let day: Int64 = 86_400_000

            do {
                _ = try await client.notificationHistory(
                    NotificationHistoryRequest(startDate: bought.now - 1_000, endDate: clock.now))
                Issue.record("a start date 200 days back was accepted")
            } catch let error as AppStoreServerAPIError {
                #expect(error.apiErrorCode == 4_000_012)
                #expect(error.httpStatus == 400)
            }
            do {
                _ = try await client.notificationHistory(
                    NotificationHistoryRequest(startDate: clock.now - day, endDate: clock.now - day))
                Issue.record("an end date equal to the start date was accepted")
            } catch let error as AppStoreServerAPIError {
                #expect(error.apiErrorCode == 4_000_013)
            }
            // The earliest allowed start lists nothing older than 180 days: the purchase is gone.
            let recent = try await client.notificationHistory(
                NotificationHistoryRequest(startDate: clock.now - 180 * day, endDate: clock.now))
            #expect(recent.items.isEmpty)
            do {
                _ = try await client.notificationHistory(
                    NotificationHistoryRequest(startDate: clock.now - day, endDate: clock.now),
                    paginationToken: "nonsense")
                Issue.record("a made-up pagination token was accepted")
            } catch let error as AppStoreServerAPIError {
                #expect(error.apiErrorCode == 4_000_014)
            }
        }
    }
}
