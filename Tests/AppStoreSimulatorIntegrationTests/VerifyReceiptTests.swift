import AppStore
import AppStoreSimulator
import Foundation
import SubLedgerCore
import Testing

@Suite struct VerifyReceiptTests {
    @Test func purchaseReceiptVerifiesThroughSandboxRedirectWithCurrentState() async throws {
        try await SimulatorFixture.with { fixture in
            _ = try await fixture.createAppleID("alice@example.com")
            let bought = try await fixture.buy("alice@example.com", "pro.monthly")
            let verified = try await fixture.verifyReceiptClient().verify(receiptData: bought.receiptData).verified()
            #expect(verified.answeredBy == .sandbox)
            #expect(verified.snapshot.bundleID == SimulatorFixture.bundleID)
            #expect(verified.response.receipt?.inApp.map(\.transactionID) == [bought.transactionID])
            #expect(verified.response.latestReceiptInfo.first?.transactionID == bought.transactionID)
            #expect(verified.response.pendingRenewalInfo.first?.autoRenewStatus == .on)
            #expect(verified.response.latestReceipt != nil)

            // The old receipt is answered with the Apple ID's current state, as Apple does.
            _ = try await fixture.advance(days: 31)
            let later = try await fixture.verifyReceiptClient().verify(receiptData: bought.receiptData).verified()
            #expect(later.response.latestReceiptInfo.count == 2)
            #expect(later.response.receipt?.inApp.count == 1)
        }
    }

    @Test func environmentMismatchesSecretAndGarbageGetApplesStatuses() async throws {
        try await SimulatorFixture.with { fixture in
            _ = try await fixture.createAppleID("sandbox@example.com")
            _ = try await fixture.createAppleID("prod@example.com", environment: .production)
            let sandbox = try await fixture.buy("sandbox@example.com", "pro.monthly")
            let production = try await fixture.buy("prod@example.com", "pro.monthly")
            func status(_ receipt: String, sandbox: Bool, secret: String = SimulatorFixture.sharedSecret) async throws
                -> Int
            {
                let body = try JSONSerialization.data(withJSONObject: ["receipt-data": receipt, "password": secret])
                let (_, text) = try await fixture.rawVerifyReceipt(
                    String(decoding: body, as: UTF8.self), sandbox: sandbox)
                return try JSONDecoder().decode(VerifyReceiptResponse.self, from: Data(text.utf8)).status
            }
            #expect(try await status(sandbox.receiptData, sandbox: false) == 21007)
            #expect(try await status(production.receiptData, sandbox: true) == 21008)
            #expect(try await status(production.receiptData, sandbox: false) == 0)
            #expect(try await status(sandbox.receiptData, sandbox: true, secret: "wrong") == 21004)
            #expect(try await status("not base64 at all!!", sandbox: true) == 21002)
            #expect(try await status(Data("garbage bytes".utf8).base64EncodedString(), sandbox: true) == 21002)

            let outcome = await fixture.verifyReceiptClient(secret: "wrong").verify(receiptData: sandbox.receiptData)
            guard case .configurationError = outcome else {
                Issue.record("wrong secret gave \(outcome)")
                return
            }
        }
    }

    @Test func receiptHoldsEveryTransactionOfTheAppleIDAcrossAppAccounts() async throws {
        try await SimulatorFixture.with { fixture in
            _ = try await fixture.createAppleID("family-ipad@example.com")
            let first = try await fixture.buy(
                "family-ipad@example.com", "pro.monthly", token: "11111111-1111-4111-8111-111111111111")
            let second = try await fixture.buy(
                "family-ipad@example.com", "lifetime", token: "22222222-2222-4222-8222-222222222222")
            let verified = try await fixture.verifyReceiptClient().verify(receiptData: second.receiptData).verified()
            let tokens = Set(verified.response.receipt?.inApp.compactMap(\.appAccountToken) ?? [])
            #expect(tokens == ["11111111-1111-4111-8111-111111111111", "22222222-2222-4222-8222-222222222222"])
            #expect(
                Set(verified.snapshot.transactions.map(\.transactionID)) == [
                    first.transactionID!, second.transactionID!,
                ])
        }
    }

    @Test func emptyUsernameBugShowsAnEmptyAccountTokenInTheReceipt() async throws {
        try await SimulatorFixture.with { fixture in
            _ = try await fixture.createAppleID("bug@example.com")
            let result = try await fixture.purchase(
                PurchaseRequest(
                    appleID: "bug@example.com", bundleID: SimulatorFixture.bundleID, productID: "pro.monthly",
                    applicationUsername: "33333333-3333-4333-8333-333333333333", emptyUsernameBug: true))
            #expect(result.applicationUsername == "")
            let verified = try await fixture.verifyReceiptClient().verify(receiptData: result.receiptData).verified()
            #expect(verified.response.receipt?.inApp.first?.appAccountToken == "")
        }
    }

    @Test func excludeOldTransactionsKeepsOnlyTheLatestRenewal() async throws {
        try await SimulatorFixture.with { fixture in
            _ = try await fixture.createAppleID("renewer@example.com")
            let bought = try await fixture.buy("renewer@example.com", "pro.monthly")
            _ = try await fixture.advance(days: 70)
            let all = try await fixture.verifyReceiptClient().verify(receiptData: bought.receiptData).verified()
            let latest = try await fixture.verifyReceiptClient(excludeOld: true).verify(receiptData: bought.receiptData)
                .verified()
            #expect(all.response.latestReceiptInfo.count == 3)
            #expect(latest.response.latestReceiptInfo.count == 1)
        }
    }

    @Test func iOS6StyleReceiptAnswersInThePreIOS7Shape() async throws {
        try await SimulatorFixture.with { fixture in
            _ = try await fixture.createAppleID("old@example.com")
            let bought = try await fixture.purchase(
                PurchaseRequest(
                    appleID: "old@example.com", bundleID: SimulatorFixture.bundleID, productID: "pro.monthly",
                    legacyReceipt: true))
            let legacy = try #require(bought.legacyReceiptData)
            let verified = try await fixture.verifyReceiptClient().verify(receiptData: legacy).verified()
            #expect(verified.response.receipt?.bid == SimulatorFixture.bundleID)
            #expect(verified.response.receipt?.legacyTransaction?.transactionID == bought.transactionID)
            #expect(verified.response.rawEnvironment == nil)
            #expect(verified.response.latestReceiptInfo.first?.transactionID == bought.transactionID)
        }
    }
}
