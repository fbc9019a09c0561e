import AppStore
import Foundation
import SubLedgerCore
import Testing

@Suite struct ReceiptResponseDecodingTests {
    static let requestedAt = Instant(millisecondsSince1970: 1_698_149_000_123)

    func decode(_ name: String) throws -> VerifyReceiptResponse {
        try JSONDecoder().decode(VerifyReceiptResponse.self, from: TestResources.data("receipts/\(name).json"))
    }

    @Test func iOS7ReceiptWithStringNumbersAndUnknownFieldsDecodes() throws {
        let response = try decode("verifyReceipt-ios7")
        #expect(response.status == 0)
        #expect(response.receipt?.bundleID == "com.example")
        #expect(response.receipt?.appItemID == 0)
        #expect(response.receipt?.receiptCreationDateMS == 1_698_148_900_000)
        #expect(response.receipt?.inApp.count == 1)
        #expect(response.receipt?.inApp.first?.isTrialPeriod == true)
        #expect(response.receipt?.legacyTransaction == nil)
        #expect(response.latestReceiptInfo.count == 2)
        let upgraded = response.latestReceiptInfo[0]
        #expect(upgraded.isUpgraded == true)
        #expect(upgraded.isInIntroOfferPeriod == false)
        #expect(upgraded.originalPurchaseDateMS == 1_695_556_800_000)
        #expect(upgraded.cancellationReason == .refundedDueToIssue)
        #expect(upgraded.inAppOwnershipType == .familyShared)
        #expect(response.latestReceiptInfo[1].rawInAppOwnershipType == "SOMETHING_NEW")
        #expect(response.latestReceiptInfo[1].inAppOwnershipType == nil)
        #expect(response.pendingRenewalInfo.count == 2)
        #expect(response.pendingRenewalInfo[0].rawExpirationIntent == 7)
        #expect(response.pendingRenewalInfo[0].expirationIntent == nil)
        #expect(response.pendingRenewalInfo[1].autoRenewStatus == .off)
    }

    @Test func iOS7ReceiptMapsToSnapshotWithEveryEntryAsIs() throws {
        let snapshot = try decode("verifyReceipt-ios7").receiptSnapshot(
            answeredBy: .production, requestedAt: Self.requestedAt)
        #expect(snapshot.bundleID == "com.example")
        #expect(snapshot.applicationVersion == "42")
        #expect(snapshot.environment == .sandbox)  // the body's environment wins over the endpoint
        #expect(snapshot.creationDate == Instant(millisecondsSince1970: 1_698_148_900_000))
        #expect(snapshot.requestDate == Instant(millisecondsSince1970: 1_698_149_000_000))
        #expect(
            snapshot.transactions.map(\.transactionID) == ["1000000000000001", "1000000000000002", "1000000000000001"])
        #expect(snapshot.transactions.allSatisfy { $0.source == .verifyReceipt && $0.bundleID == "com.example" })
        let upgraded = snapshot.transactions[1]
        #expect(upgraded.chainID == "1000000000000001")
        #expect(upgraded.isUpgraded)
        #expect(upgraded.revocationDate == Instant(millisecondsSince1970: 1_699_000_000_000))
        #expect(upgraded.revocationReason == 1)
        #expect(upgraded.ownershipType == .familyShared)
        #expect(upgraded.offerType == 2)
        #expect(upgraded.offerIdentifier == "winback_50")
        #expect(upgraded.subscriptionGroupID == "20000001")
        #expect(upgraded.webOrderLineItemID == "1000000080000002")
        #expect(upgraded.accountHint == "7e3fb20b-4cdb-47cc-936d-99d65f608138")
        #expect(upgraded.expiresDate == Instant(millisecondsSince1970: 1_729_771_200_000))
        #expect(snapshot.transactions[0].isTrialPeriod)
        #expect(snapshot.transactions[0].offerType == 1)
        #expect(snapshot.transactions[2].ownershipType == .purchased)
        #expect(snapshot.latestReceipt?.hasPrefix("TUlJVHRn") == true)

        #expect(snapshot.renewalInfo.count == 2)
        let renewal = snapshot.renewalInfo[0]
        #expect(renewal.willAutoRenew)
        #expect(renewal.autoRenewProductID == "com.example.monthly")
        #expect(renewal.expirationIntent == 7)
        #expect(renewal.isInBillingRetryPeriod)
        #expect(renewal.gracePeriodExpiresDate == Instant(millisecondsSince1970: 1_730_000_000_000))
        #expect(renewal.priceIncreaseStatus == 0)
        #expect(renewal.offerType == 2)
        #expect(renewal.observedAt == snapshot.requestDate)
        #expect(!snapshot.renewalInfo[1].willAutoRenew)
        #expect(snapshot.renewalInfo[1].priceIncreaseStatus == 1)
        #expect(snapshot.renewalInfo[1].offerType == 3)
        #expect(snapshot.renewalInfo[1].offerIdentifier == "SPRING")
    }

    @Test func preIOS7ReceiptMapsTopLevelTransactionAndObjectLatestReceiptInfo() throws {
        let response = try decode("verifyReceipt-pre-ios7")
        #expect(response.receipt?.bid == "com.example")
        #expect(response.receipt?.legacyTransaction?.transactionID == "30000001")
        #expect(response.latestReceiptInfo.count == 1)
        let snapshot = try response.receiptSnapshot(answeredBy: .production, requestedAt: Self.requestedAt)
        #expect(snapshot.bundleID == "com.example")
        #expect(snapshot.applicationVersion == "1.2")
        #expect(snapshot.environment == .production)
        #expect(snapshot.requestDate == Self.requestedAt)
        #expect(snapshot.creationDate == Self.requestedAt)
        #expect(snapshot.transactions.map(\.transactionID) == ["30000001", "30000002"])
        #expect(snapshot.transactions[0].expiresDate == Instant(millisecondsSince1970: 1_341_136_800_000))
        #expect(snapshot.transactions[1].expiresDate == Instant(millisecondsSince1970: 1_343_815_200_000))
        #expect(snapshot.transactions[1].chainID == "30000000")
    }

    @Test func missingOptionalFieldsAreTolerated() throws {
        let body =
            #"{"status":"0","receipt":{"bundle_id":"com.example","in_app":[{"product_id":"p","transaction_id":"1","purchase_date_ms":1}]}}"#
        let response = try JSONDecoder().decode(VerifyReceiptResponse.self, from: Data(body.utf8))
        let snapshot = try response.receiptSnapshot(answeredBy: .sandbox, requestedAt: Self.requestedAt)
        #expect(snapshot.transactions.count == 1)
        #expect(snapshot.transactions[0].chainID == "1")
        #expect(snapshot.transactions[0].quantity == 1)
        #expect(snapshot.transactions[0].expiresDate == nil)
        #expect(snapshot.renewalInfo.isEmpty)
        #expect(snapshot.environment == .sandbox)
    }

    @Test func entryWithoutTransactionIDIsAMappingError() throws {
        let body =
            #"{"status":0,"receipt":{"bundle_id":"com.example","in_app":[{"product_id":"p","purchase_date_ms":"1"}]}}"#
        let response = try JSONDecoder().decode(VerifyReceiptResponse.self, from: Data(body.utf8))
        #expect(throws: PayloadMappingError(.missingField, field: "transaction_id")) {
            try response.receiptSnapshot(answeredBy: .sandbox, requestedAt: Self.requestedAt)
        }
    }

    @Test(arguments: ["<html><body>Service Unavailable</body></html>", "{}", "[]", "{\"status\":\"ok\"}", ""])
    func bodiesWithoutStatusDoNotDecode(body: String) {
        #expect(throws: (any Error).self) {
            try JSONDecoder().decode(VerifyReceiptResponse.self, from: Data(body.utf8))
        }
    }

    @Test(arguments: [
        ("Production", StoreEnvironment.production), ("PROD", .production), ("Sandbox", .sandbox),
        ("SANDBOX", .sandbox), ("Xcode", .xcode), ("LocalTesting", .localTesting),
    ])
    func environmentSpellings(spelling: String, expected: StoreEnvironment) {
        #expect(StoreEnvironment(appleSpelling: spelling) == expected)
    }

    @Test func unknownEnvironmentSpellingIsNil() {
        #expect(StoreEnvironment(appleSpelling: "Staging") == nil)
    }
}
