import AppStore
import AppStoreSimulator
import Foundation
import SubLedgerCore
import Testing

@Suite struct SubscriptionLifecycleTests {
    @Test func renewalKeepsOriginalIDWithNewTransactionAndWebOrderLineItemIDs() async throws {
        try await SimulatorFixture.with { fixture in
            _ = try await fixture.createAppleID("renew@example.com")
            let bought = try await fixture.buy("renew@example.com", "pro.monthly")
            let renewed = try await fixture.action("/control/subscriptions/\(bought.originalTransactionID!)/renew")
            #expect(renewed.originalTransactionID == bought.originalTransactionID)
            #expect(renewed.transactionID != bought.transactionID)
            #expect(renewed.webOrderLineItemID != bought.webOrderLineItemID)
            #expect(renewed.transactionID.map { $0.allSatisfy(\.isNumber) } == true)
            let verifier = try fixture.verifier()
            let transaction = try await verifier.verifyTransaction(try #require(renewed.signedTransaction))
            #expect(transaction.transactionReason == .renewal)
            #expect(transaction.originalTransactionID == bought.originalTransactionID)
        }
    }

    @Test func clockPassingExpiryRenewsAutomaticallyAndExpiresWhenAutoRenewIsOff() async throws {
        try await SimulatorFixture.with { fixture in
            _ = try await fixture.createAppleID("auto@example.com")
            let bought = try await fixture.buy("auto@example.com", "pro.monthly")
            _ = try await fixture.advance(days: 32)
            let afterRenewal = try await fixture.verifyReceiptClient().verify(receiptData: bought.receiptData)
                .verified()
            #expect(afterRenewal.response.latestReceiptInfo.count == 2)
            _ = try await fixture.action(
                "/control/subscriptions/\(bought.originalTransactionID!)/auto-renew",
                body: AutoRenewRequest(enabled: false))
            _ = try await fixture.advance(days: 31)
            let expired = try await fixture.verifyReceiptClient().verify(receiptData: bought.receiptData).verified()
            #expect(expired.response.latestReceiptInfo.count == 2)
            #expect(expired.response.pendingRenewalInfo.first?.expirationIntent == .customerCancelled)
            #expect(expired.response.pendingRenewalInfo.first?.autoRenewStatus == .off)
        }
    }

    @Test func upgradeIsImmediateOnTheSameOriginalIDAndMarksTheOldTransactionUpgraded() async throws {
        try await SimulatorFixture.with { fixture in
            _ = try await fixture.createAppleID("upgrade@example.com")
            let bought = try await fixture.buy("upgrade@example.com", "pro.monthly")
            let upgraded = try await fixture.action(
                "/control/subscriptions/\(bought.originalTransactionID!)/change-product",
                body: ChangeProductRequest(productID: "premium.monthly"))
            #expect(upgraded.originalTransactionID == bought.originalTransactionID)
            #expect(upgraded.productID == "premium.monthly")
            let verified = try await fixture.verifyReceiptClient().verify(receiptData: upgraded.receiptData).verified()
            let old = verified.response.latestReceiptInfo.first { $0.transactionID == bought.transactionID }
            #expect(old?.isUpgraded == true)
            // Apple dates the upgraded plan's end (the upgrade's moment), with no refund reason.
            let new = verified.response.latestReceiptInfo.first { $0.transactionID == upgraded.transactionID }
            #expect(old?.cancellationDateMS != nil && old?.cancellationDateMS == new?.purchaseDateMS)
            #expect(old?.rawCancellationReason == nil)
            let downgraded = try await fixture.action(
                "/control/subscriptions/\(bought.originalTransactionID!)/change-product",
                body: ChangeProductRequest(productID: "pro.monthly"))
            // A downgrade waits for the next renewal.
            #expect(downgraded.transactionID == upgraded.transactionID)
            let renewal = try await fixture.verifier().verifyRenewalInfo(try #require(downgraded.signedRenewalInfo))
            #expect(renewal.autoRenewProductID == "pro.monthly")
            #expect(renewal.productID == "premium.monthly")
        }
    }

    @Test func billingFailureEntersGraceThenRecoversWithBillingRecovery() async throws {
        let receiver = try await NotificationReceiver.start()
        defer { Task { await receiver.shutdown() } }
        try await SimulatorFixture.with(gracePeriodDays: 16, notificationURL: receiver.url) { fixture in
            _ = try await fixture.createAppleID("card@example.com")
            let bought = try await fixture.buy("card@example.com", "pro.monthly")
            let failing = try await fixture.action(
                "/control/subscriptions/\(bought.originalTransactionID!)/billing-failure",
                body: BillingFailureRequest(immediately: true))
            #expect(failing.subscriptionStatus == SubscriptionStatus.billingGracePeriod.rawValue)
            let renewalInfo = try await fixture.verifier().verifyRenewalInfo(try #require(failing.signedRenewalInfo))
            #expect(renewalInfo.isInBillingRetryPeriod == true)
            #expect(renewalInfo.gracePeriodExpiresDate != nil)
            let recovered = try await fixture.action(
                "/control/subscriptions/\(bought.originalTransactionID!)/billing-recovery")
            #expect(recovered.subscriptionStatus == SubscriptionStatus.active.rawValue)
            #expect(recovered.originalTransactionID == bought.originalTransactionID)
            let kinds = try await fixture.decodeNotifications(receiver.bodies).map(\.kind)
            #expect(
                kinds == ["SUBSCRIBED/INITIAL_BUY", "DID_FAIL_TO_RENEW/GRACE_PERIOD", "DID_RENEW/BILLING_RECOVERY"])
        }
    }

    @Test func refundAndReversalSetAndClearTheCancellation() async throws {
        try await SimulatorFixture.with { fixture in
            _ = try await fixture.createAppleID("refund@example.com")
            let bought = try await fixture.buy("refund@example.com", "lifetime")
            let refunded = try await fixture.action(
                "/control/transactions/\(bought.transactionID!)/refund", body: RefundRequest(reason: 1))
            let verified = try await fixture.verifyReceiptClient().verify(receiptData: refunded.receiptData).verified()
            let entry = try #require(verified.response.receipt?.inApp.first)
            #expect(entry.cancellationDateMS == refunded.now)
            #expect(entry.cancellationReason == .refundedDueToIssue)
            let signed = try await fixture.verifier().verifyTransaction(try #require(refunded.signedTransaction))
            #expect(signed.revocationReason == .refundedDueToIssue)
            let reversed = try await fixture.action("/control/transactions/\(bought.transactionID!)/refund-reversal")
            let again = try await fixture.verifier().verifyTransaction(try #require(reversed.signedTransaction))
            #expect(again.revocationDate == nil)
        }
    }

    @Test func familySharingGrantsACopyAndRevokeEndsIt() async throws {
        try await SimulatorFixture.with { fixture in
            _ = try await fixture.createAppleID("parent@example.com")
            _ = try await fixture.createAppleID("child@example.com")
            let bought = try await fixture.buy("parent@example.com", "pro.monthly")
            let shared = try await fixture.action(
                "/control/transactions/\(bought.transactionID!)/family-share",
                body: FamilyShareRequest(appleID: "child@example.com"))
            #expect(shared.appleID == "child@example.com")
            let copy = try await fixture.verifier().verifyTransaction(try #require(shared.signedTransaction))
            #expect(copy.inAppOwnershipType == .familyShared)
            #expect(copy.originalTransactionID != bought.originalTransactionID)
            let revoked = try await fixture.action(
                "/control/transactions/\(bought.transactionID!)/family-revoke",
                body: FamilyShareRequest(appleID: "child@example.com"))
            #expect(revoked.subscriptionStatus == SubscriptionStatus.revoked.rawValue)
            let revokedCopy = try await fixture.verifier().verifyTransaction(try #require(revoked.signedTransaction))
            #expect(revokedCopy.revocationDate != nil)
        }
    }

    @Test func askToBuyCreatesNothingUntilApprovedAndNothingWhenDeclined() async throws {
        try await SimulatorFixture.with { fixture in
            _ = try await fixture.createAppleID("kid@example.com")
            let asked = try await fixture.purchase(
                PurchaseRequest(
                    appleID: "kid@example.com", bundleID: SimulatorFixture.bundleID, productID: "coins", askToBuy: true)
            )
            let requestID = try #require(asked.askToBuyRequestID)
            #expect(asked.transactionID == nil)
            let approved = try await fixture.action("/control/ask-to-buy/\(requestID)/approve")
            #expect(approved.transactionID != nil)
            let declinedRequest = try await fixture.purchase(
                PurchaseRequest(
                    appleID: "kid@example.com", bundleID: SimulatorFixture.bundleID, productID: "coins", askToBuy: true)
            )
            let declined = try await fixture.action("/control/ask-to-buy/\(declinedRequest.askToBuyRequestID!)/decline")
            let receipt = try AppReceiptReader().read(base64: declined.receiptData)
            #expect(receipt.inAppPurchases.count == 1)
        }
    }

    @Test func sameSeedGivesTheSameIDs() async throws {
        func firstIDs() async throws -> [String?] {
            try await SimulatorFixture.with { fixture in
                _ = try await fixture.createAppleID("seed@example.com")
                let bought = try await fixture.buy("seed@example.com", "pro.monthly")
                return [
                    bought.transactionID, bought.webOrderLineItemID, bought.orderID, bought.notificationUUIDs.first,
                ]
            }
        }
        let first = try await firstIDs()
        let second = try await firstIDs()
        #expect(first == second)
    }
}
