import AppStoreSimulator
import Foundation
import SubLedgerCore
import Testing

/// What the customer-life simulation found, each as a story of its own (`CustomerLifeSimulationTests`): a seed's
/// meaning changes whenever the simulation gains a step, these do not.
@Suite struct SimulationFindingsTests {
    typealias E = EndToEndHarness

    /// A refund Apple made while its notifications did not reach SubLedger, first seen in a receipt another account
    /// uploads (under `keep_first_owner` it answers `belongs_to_another_account`): the refund ends the owner's access, though
    /// the owner's StoreKit 2 submission of the clean transaction was signed in the same millisecond of the clock.
    @Test(arguments: [OwnershipPolicy.activeAutoRenewerKeeps, .latestSubmitterTakes, .originalAccountKeeps])
    func aRefundSeenFirstInAnotherAccountsReceipt(_ policy: OwnershipPolicy) async throws {
        try await E.run { e in
            try await e.applyCatalog(ownershipPolicy: policy)
            let appleID = try e.appleID()
            let bought = try await e.control.purchase(
                PurchaseRequest(appleID: appleID, bundleID: E.bundleID, productID: "pro.monthly"))
            await e.deliverNotifications()
            let chain = try #require(bought.originalTransactionID)
            let purchase = try #require(bought.transactionID)
            let byOwner = try await e.submitSignedTransaction(
                try e.control.signedTransaction(purchase), account: "owner")
            #expect(byOwner.results[purchase] == "applied")
            // Auto-renew off and on again: states signed after the clock's instant, which stands still.
            _ = try await e.control.setAutoRenew(chain, enabled: false)
            _ = try await e.control.setAutoRenew(chain, enabled: true)
            await e.deliverNotifications()
            #expect(try await e.entitlements("owner").entitlementIDs == ["pro"])

            await e.loseNotifications()
            _ = try await e.control.refund(purchase)
            let receipt = try await e.control.receipt(appleID: appleID, bundleID: E.bundleID)
            let byOther = try await e.submitReceipt(receipt.receiptData, account: "other")
            if policy == .originalAccountKeeps {
                #expect(byOther.json.results[purchase] == "belongs_to_another_account")
            }
            #expect(try await e.entitlements("owner").entitlementIDs.isEmpty)
            #expect(try await e.entitlements("other").entitlementIDs.isEmpty)
        }
    }

    /// Under `latest_submitter_takes` an account takes another's chain by uploading its receipt (`applied`), and
    /// uploads the same receipt again: the answer is `applied` again. The purchase's own period stays credited to
    /// the account that held it then, and the repeat once answered `belongs_to_another_account` from that credit,
    /// so two identical uploads sent at once answered one of each (the simulation's concurrent pair).
    @Test func aRepeatedUploadAfterATransferAnswersAsTheFirst() async throws {
        try await E.run { e in
            try await e.applyCatalog(ownershipPolicy: .latestSubmitterTakes)
            let appleID = try e.appleID()
            let bought = try await e.control.purchase(
                PurchaseRequest(appleID: appleID, bundleID: E.bundleID, productID: "pro.monthly"))
            await e.deliverNotifications()
            let purchase = try #require(bought.transactionID)
            let receipt = try await e.control.receipt(appleID: appleID, bundleID: E.bundleID)
            #expect(
                try await e.submitReceipt(receipt.receiptData, account: "first").json.results[purchase] == "applied")
            let taken = try await e.submitReceipt(receipt.receiptData, account: "second")
            #expect(taken.json.results[purchase] == "applied")
            let again = try await e.submitReceipt(receipt.receiptData, account: "second")
            #expect(again.json.results[purchase] == "applied")
            #expect(try await e.entitlements("second").entitlementIDs == ["pro"])
            #expect(try await e.entitlements("first").entitlementIDs.isEmpty)
        }
    }
}
