import AppStore
import AppStoreSimulator
import Foundation
import SubLedgerCore
import Testing

/// The renewal info of a `REFUND` notification carries `renewalDate`, as Apple's does: when the chain's most
/// recent purchase expires.
@Suite struct RefundRenewalInfoTests {
    @Test func aRefundNotificationsRenewalInfoHasTheRenewalDate() async throws {
        let receiver = try await NotificationReceiver.start()
        defer { Task { await receiver.shutdown() } }
        try await SimulatorFixture.with(notificationURL: receiver.url) { fixture in
            _ = try await fixture.createAppleID("refunded@example.com")
            let bought = try await fixture.buy("refunded@example.com", "pro.monthly")
            _ = try await fixture.action("/control/transactions/\(bought.transactionID!)/refund", body: RefundRequest())
            let notifications = try await fixture.decodeNotifications(receiver.bodies)
            let refund = try #require(notifications.first { $0.kind.hasPrefix("REFUND") })
            let expires = try #require(refund.transaction?.expiresDate)
            #expect(refund.renewalInfo?.renewalDate == expires)
        }
    }
}
