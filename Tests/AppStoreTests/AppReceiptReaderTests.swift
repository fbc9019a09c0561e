import AppStore
import Foundation
import SubLedgerCore
import Testing

@Suite struct AppReceiptReaderTests {
    @Test func readsReceiptFieldsAndInAppPurchases() throws {
        let receipt = try AppReceiptReader().read(der: AppReceiptFixture.sampleReceipt())
        #expect(receipt.receiptType == "ProductionSandbox")
        #expect(receipt.environment == .sandbox)
        #expect(receipt.bundleID == "com.example")
        #expect(receipt.applicationVersion == "42")
        #expect(receipt.originalApplicationVersion == "1.0")
        #expect(receipt.creationDate == 1_700_000_000_000)
        #expect(receipt.inAppPurchases.count == 2)
        let first = receipt.inAppPurchases[0]
        #expect(first.quantity == 1)
        #expect(first.productID == "com.example.monthly")
        #expect(first.transactionID == "1000000000000001")
        #expect(first.originalTransactionID == "1000000000000001")
        #expect(first.purchaseDate == 1_697_321_600_000)
        #expect(first.expiresDate == 1_700_000_000_000)
        #expect(first.webOrderLineItemID == 1_000_000_080_000_001)
        #expect(first.cancellationDate == nil)
        #expect(first.isInIntroOfferPeriod == true)
        let second = receipt.inAppPurchases[1]
        #expect(second.purchaseDate == 1_700_000_000_500)
        #expect(second.expiresDate == 1_702_588_400_000)  // +01:00 offset applied
        #expect(second.isInIntroOfferPeriod == false)
        #expect(receipt.transactionIDs == ["1000000000000001", "1000000000000002"])
    }

    @Test func readsBase64WithLineBreaksAndBERIndefiniteLengths() throws {
        let ber = AppReceiptFixture.withIndefiniteOuterLength(try AppReceiptFixture.sampleReceipt())
        var base64 = Data(ber).base64EncodedString(options: [.lineLength64Characters])
        base64 += "\n"
        let receipt = try AppReceiptReader().read(base64: base64)
        #expect(receipt.bundleID == "com.example")
        #expect(receipt.inAppPurchases.count == 2)
    }

    @Test func otherContentTypeIsRejected() throws {
        let payload = try AppReceiptFixture.attributeSet([(2, AppReceiptFixture.utf8("com.example"))])
        let enveloped = try AppReceiptFixture.pkcs7(payload: payload, contentType: [1, 2, 840, 113_549, 1, 7, 3])
        #expect(throws: AppReceiptError(.unexpectedContentType)) { try AppReceiptReader().read(der: enveloped) }
    }

    @Test func payloadThatIsNotAnAttributeSetIsRejected() throws {
        let receipt = try AppReceiptFixture.pkcs7(payload: AppReceiptFixture.utf8("not a set"))
        #expect(throws: AppReceiptError(.malformedPayload)) { try AppReceiptReader().read(der: receipt) }
    }

    @Test func everyTruncationIsAnError() throws {
        let bytes = try AppReceiptFixture.sampleReceipt()
        for length in 0..<bytes.count {
            #expect(throws: AppReceiptError.self, "prefix \(length)") {
                try AppReceiptReader().read(der: Array(bytes.prefix(length)))
            }
        }
    }

    @Test func deeplyNestedInputIsAnErrorNotACrash() {
        // 100 000 nested indefinite-length SEQUENCEs: far past swift-asn1's depth limit.
        let depth = 100_000
        let bytes =
            [UInt8](repeating: 0, count: depth * 2).enumerated().map { $0.offset % 2 == 0 ? 0x30 : 0x80 }
            + [UInt8](repeating: 0x00, count: depth * 2)
        #expect(throws: AppReceiptError(.malformedContainer)) { try AppReceiptReader().read(der: bytes) }
    }

    @Test func oversizedInputIsRefusedBeforeParsing() throws {
        let reader = AppReceiptReader(maximumBytes: 64)
        #expect(throws: AppReceiptError(.tooLarge)) { try reader.read(der: AppReceiptFixture.sampleReceipt()) }
        #expect(throws: AppReceiptError(.tooLarge)) { try reader.read(base64: String(repeating: "A", count: 10_000)) }
    }

    @Test(arguments: ["", "!!!!", "not base64 at all ~~~"])
    func nonBase64IsRejected(text: String) {
        #expect(throws: AppReceiptError(.invalidBase64)) { try AppReceiptReader().read(base64: text) }
    }

    @Test func appleLegacyTransactionVectorIsNotAPKCS7Receipt() throws {
        // Apple's `legacyTransaction` vector is an old-style plist-like purchase, not PKCS#7.
        #expect(throws: AppReceiptError.self) {
            try AppReceiptReader().read(base64: TestResources.signedData("legacyTransaction"))
        }
    }
}
