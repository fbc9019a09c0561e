import AppStore
import AppStoreSimulator
import Foundation
import SubLedgerCore
import Testing

/// With the manual clock standing still, two states of one chain are never signed in the same millisecond:
/// each notification of a chain is signed strictly after the one before, and what is read afterwards is signed no
/// earlier than the chain's latest state.
@Suite struct ChainSigningTimeTests {
    @Test func aPurchaseAndAnAutoRenewChangeAtOneInstantAreSignedInOrder() async throws {
        let receiver = try await NotificationReceiver.start()
        defer { Task { await receiver.shutdown() } }
        try await SimulatorFixture.with(notificationURL: receiver.url) { fixture in
            _ = try await fixture.createAppleID("still@example.com")
            let bought = try await fixture.buy("still@example.com", "pro.monthly")
            let off = try await fixture.action(
                "/control/subscriptions/\(bought.originalTransactionID!)/auto-renew",
                body: AutoRenewRequest(enabled: false))
            let on = try await fixture.action(
                "/control/subscriptions/\(bought.originalTransactionID!)/auto-renew",
                body: AutoRenewRequest(enabled: true))
            #expect(bought.now == off.now && off.now == on.now)

            let notifications = try await fixture.decodeNotifications(receiver.bodies)
            #expect(
                notifications.map(\.kind) == [
                    "SUBSCRIBED/INITIAL_BUY", "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_DISABLED",
                    "DID_CHANGE_RENEWAL_STATUS/AUTO_RENEW_ENABLED",
                ])
            let renewalDates = notifications.compactMap { $0.renewalInfo?.signedDate }
            #expect(renewalDates.count == 3)
            #expect(renewalDates == renewalDates.sorted() && Set(renewalDates).count == 3)
            let notificationDates = notifications.compactMap(\.payload.signedDate)
            #expect(notificationDates == renewalDates)

            // The action's answer carries the state just notified, signed no earlier than it.
            let answered = try JWSTestDecoding.renewalInfo(try #require(on.signedRenewalInfo))
            #expect(answered.signedDate == renewalDates.last)
        }
    }

    /// A receipt verified after a state of its chains was signed is answered no earlier than that state, and the
    /// chain's next state is signed after the answer: Apple has one clock, so
    /// a refund a later receipt shows is never dated before a clean state the app submitted earlier (SubLedger orders
    /// observations by these dates, and would take the refund for one that was reversed).
    @Test func aReceiptVerifiedAfterASignedStateIsDatedNoEarlier() async throws {
        let receiver = try await NotificationReceiver.start()
        defer { Task { await receiver.shutdown() } }
        try await SimulatorFixture.with(notificationURL: receiver.url) { fixture in
            _ = try await fixture.createAppleID("still@example.com")
            let bought = try await fixture.buy("still@example.com", "pro.monthly")
            let chain = try #require(bought.originalTransactionID)
            _ = try await fixture.action(
                "/control/subscriptions/\(chain)/auto-renew", body: AutoRenewRequest(enabled: false))
            let on = try await fixture.action(
                "/control/subscriptions/\(chain)/auto-renew", body: AutoRenewRequest(enabled: true))
            let renewalInfo = try JWSTestDecoding.renewalInfo(try #require(on.signedRenewalInfo))
            let signed = try #require(renewalInfo.signedDate)
            #expect(signed > on.now)

            let verified = try await fixture.verifyReceiptClient().verify(receiptData: bought.receiptData).verified()
            let requestDate = try #require(verified.response.receipt?.requestDateMS)
            #expect(requestDate >= signed)

            // Another Apple ID's chain signing more states moves this receipt's date no further, and this chain's
            // next state (a refund) is signed after the receipt that showed it clean.
            _ = try await fixture.createAppleID("other@example.com")
            let other = try await fixture.buy("other@example.com", "pro.monthly")
            for enabled in [false, true, false, true] {
                _ = try await fixture.action(
                    "/control/subscriptions/\(try #require(other.originalTransactionID))/auto-renew",
                    body: AutoRenewRequest(enabled: enabled))
            }
            let again = try await fixture.verifyReceiptClient().verify(receiptData: bought.receiptData).verified()
            let againDate = try #require(again.response.receipt?.requestDateMS)
            #expect(againDate == requestDate)
            _ = try await fixture.action("/control/transactions/\(try #require(bought.transactionID))/refund")
            let refund = try #require(try await fixture.decodeNotifications(receiver.bodies).last)
            #expect(refund.transaction?.transactionID == bought.transactionID)
            #expect(try #require(refund.payload.signedDate) > againDate)
        }
    }

    @Test func anotherChainKeepsTheClocksInstant() async throws {
        let receiver = try await NotificationReceiver.start()
        defer { Task { await receiver.shutdown() } }
        try await SimulatorFixture.with(notificationURL: receiver.url) { fixture in
            _ = try await fixture.createAppleID("first@example.com")
            _ = try await fixture.createAppleID("second@example.com")
            let first = try await fixture.buy("first@example.com", "pro.monthly")
            _ = try await fixture.action(
                "/control/subscriptions/\(first.originalTransactionID!)/auto-renew",
                body: AutoRenewRequest(enabled: false))
            let second = try await fixture.buy("second@example.com", "pro.monthly")
            let notifications = try await fixture.decodeNotifications(receiver.bodies)
            let last = try #require(notifications.last)
            #expect(last.transaction?.originalTransactionID == second.originalTransactionID)
            #expect(last.payload.signedDate == second.now)
        }
    }
}

/// Reads a JWS payload without verifying it (the tests above verify the notifications themselves).
enum JWSTestDecoding {
    static func renewalInfo(_ jws: String) throws -> JWSRenewalInfoDecodedPayload {
        let part = String(jws.split(separator: ".")[1])
        var base64 = part.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return try JSONDecoder().decode(
            JWSRenewalInfoDecodedPayload.self, from: try #require(Data(base64Encoded: base64)))
    }
}
