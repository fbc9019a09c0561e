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

    @Test func iOS7ReceiptMapsToSnapshotWithApplesCurrentCopyOfEveryEntry() throws {
        let snapshot = try decode("verifyReceipt-ios7").receiptSnapshot(
            answeredBy: .production, requestedAt: Self.requestedAt)
        #expect(snapshot.bundleID == "com.example")
        #expect(snapshot.applicationVersion == "42")
        #expect(snapshot.environment == .sandbox)  // the body's environment wins over the endpoint
        #expect(snapshot.creationDate == Instant(millisecondsSince1970: 1_698_148_900_000))
        #expect(snapshot.requestDate == Instant(millisecondsSince1970: 1_698_149_000_000))
        // `in_app`'s copy of 1000000000000001 gives way to `latest_receipt_info`'s, Apple's word at the request.
        #expect(snapshot.transactions.map(\.transactionID) == ["1000000000000002", "1000000000000001"])
        #expect(snapshot.transactions.allSatisfy { $0.source == .verifyReceipt && $0.bundleID == "com.example" })
        let upgraded = snapshot.transactions[0]
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
        #expect(snapshot.transactions[1].isTrialPeriod)
        #expect(snapshot.transactions[1].ownershipType == .purchased)
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

    /// The receipt's own copy (`in_app`, as the device made it) still shows a refund Apple has since reversed;
    /// `latest_receipt_info` (Apple's word at the request) shows the transaction clean. Both are observed at the
    /// request, so the stale copy would hide the reversal: only the current one is kept.
    @Test func aRefundReversedSinceTheReceiptWasMadeShowsAsApplesCurrentCopy() throws {
        let entry = """
            "product_id": "com.example.monthly", "transaction_id": "1000000000000001",
            "original_transaction_id": "1000000000000001", "purchase_date_ms": "1695556800000",
            "expires_date_ms": "1698148800000"
            """
        let body = """
            {"status": 0, "environment": "Production",
             "receipt": {"bundle_id": "com.example", "request_date_ms": "1699000000000",
                         "receipt_creation_date_ms": "1696000000000",
                         "in_app": [{\(entry), "cancellation_date_ms": "1696000000000", "cancellation_reason": "0"}]},
             "latest_receipt_info": [{\(entry)}]}
            """
        let response = try JSONDecoder().decode(VerifyReceiptResponse.self, from: Data(body.utf8))
        let snapshot = try response.receiptSnapshot(answeredBy: .production, requestedAt: Self.requestedAt)
        #expect(snapshot.transactions.count == 1)
        #expect(snapshot.transactions.first?.revocationDate == nil)
        // Without `latest_receipt_info` (no shared secret), the receipt's own copy is all there is.
        let own = try JSONDecoder().decode(
            VerifyReceiptResponse.self,
            from: Data(body.replacingOccurrences(of: ",\n \"latest_receipt_info\": [{\(entry)}]", with: "").utf8))
        let alone = try own.receiptSnapshot(answeredBy: .production, requestedAt: Self.requestedAt)
        #expect(alone.transactions.first?.revocationDate == Instant(millisecondsSince1970: 1_696_000_000_000))
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
