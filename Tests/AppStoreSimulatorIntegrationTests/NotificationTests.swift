import AppStore
import AppStoreSimulator
import Foundation
import SubLedgerCore
import Testing

@Suite struct NotificationTests {
    @Test func signedNotificationsArriveForEachEventAndVerify() async throws {
        let receiver = try await NotificationReceiver.start()
        defer { Task { await receiver.shutdown() } }
        try await SimulatorFixture.with(notificationURL: receiver.url) { fixture in
            _ = try await fixture.createAppleID("events@example.com")
            let bought = try await fixture.buy("events@example.com", "pro.monthly")
            let id = bought.originalTransactionID!
            _ = try await fixture.action(
                "/control/subscriptions/\(id)/auto-renew", body: AutoRenewRequest(enabled: false))
            _ = try await fixture.action(
                "/control/subscriptions/\(id)/auto-renew", body: AutoRenewRequest(enabled: true))
            _ = try await fixture.advance(days: 32)
            _ = try await fixture.buy("events@example.com", "coins")
            let notifications = try await fixture.decodeNotifications(receiver.bodies)
            #expect(
                notifications.map(\.kind) == [
                    "SUBSCRIBED/INITIAL_BUY", "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED",
                    "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_ENABLED", "DID_RENEW", "ONE_TIME_CHARGE",
                ])
            #expect(notifications[0].transaction?.transactionID == bought.transactionID)
            #expect(notifications[0].payload.notificationUUID == bought.notificationUUIDs.first)
            #expect(notifications[3].renewalInfo?.originalTransactionID == id)
            #expect(notifications[0].payload.data?.bundleID == SimulatorFixture.bundleID)
            #expect(notifications[0].payload.version == "2.0")
        }
    }

    @Test func failedDeliveryIsRetriedAnHourLaterAndHistoryShowsAttempts() async throws {
        let receiver = try await NotificationReceiver.start(statuses: [500])
        defer { Task { await receiver.shutdown() } }
        try await SimulatorFixture.with(notificationURL: receiver.url) { fixture in
            _ = try await fixture.createAppleID("retry@example.com")
            let bought = try await fixture.buy("retry@example.com", "lifetime")
            #expect(receiver.bodies.count == 1)
            _ = try await fixture.advance(hours: 0, days: 0)
            #expect(receiver.bodies.count == 1)
            _ = try await fixture.controlClient.call(
                "POST", "/control/clock/advance", body: ClockAdvanceRequest(minutes: 61), as: ClockDescription.self)
            #expect(receiver.bodies.count == 2)
            #expect(receiver.bodies[0] == receiver.bodies[1])

            let client = try fixture.serverAPIClient()
            let start = bought.now - 1000
            let page = try await client.notificationHistory(
                NotificationHistoryRequest(startDate: start, endDate: start + 86_400_000))
            let attempts = try #require(page.items.first?.sendAttempts)
            #expect(attempts.map(\.sendAttemptResult) == ["UNSUCCESSFUL_HTTP_RESPONSE_CODE", "SUCCESS"])
            #expect(page.items.first?.notification.notificationUUID == bought.notificationUUIDs.first)
        }
    }

    @Test func duplicateDeliverySendsTwiceAndOutOfOrderSendsTheNewerFirst() async throws {
        let receiver = try await NotificationReceiver.start()
        defer { Task { await receiver.shutdown() } }
        try await SimulatorFixture.with(notificationURL: receiver.url) { fixture in
            _ = try await fixture.createAppleID("order@example.com")
            _ = try await fixture.controlClient.call(
                "PATCH", "/control/notifications/settings", body: NotificationSettingsUpdate(duplicate: true),
                as: NotificationSettings.self)
            _ = try await fixture.buy("order@example.com", "coins")
            let twice = try await fixture.decodeNotifications(receiver.bodies)
            try #require(twice.count == 2)
            #expect(twice[0].payload.notificationUUID == twice[1].payload.notificationUUID)

            _ = try await fixture.controlClient.call(
                "PATCH", "/control/notifications/settings",
                body: NotificationSettingsUpdate(duplicate: false, outOfOrder: true), as: NotificationSettings.self)
            let bought = try await fixture.buy("order@example.com", "pro.monthly")
            #expect(receiver.bodies.count == 2)
            _ = try await fixture.action(
                "/control/subscriptions/\(bought.originalTransactionID!)/auto-renew",
                body: AutoRenewRequest(enabled: false))
            let all = try await fixture.decodeNotifications(receiver.bodies)
            #expect(
                all.dropFirst(2).map(\.kind) == [
                    "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED", "SUBSCRIBED/INITIAL_BUY",
                ])
        }
    }

    @Test func version1NotificationsCarryThePasswordAndUnifiedReceipt() async throws {
        let receiver = try await NotificationReceiver.start()
        defer { Task { await receiver.shutdown() } }
        try await SimulatorFixture.with(notificationURL: receiver.url, notificationVersion: "V1") { fixture in
            _ = try await fixture.createAppleID("v1@example.com")
            let bought = try await fixture.buy("v1@example.com", "pro.monthly")
            let decoder = ServerNotificationDecoder(
                verifier: try fixture.verifier(), sharedSecret: SimulatorFixture.sharedSecret)
            let notification = try decoder.decodeV1(body: try #require(receiver.bodies.first))
            #expect(notification.payload.notificationType == .initialBuy)
            #expect(notification.notification.receipt?.transactions.map(\.transactionID) == [bought.transactionID!])
        }
    }
}
