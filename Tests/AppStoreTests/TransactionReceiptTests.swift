import AppStore
import Foundation
import Testing

/// iOS 6 style transaction receipts (`SKPaymentTransaction.transactionReceipt`) read offline, as Apple's
/// `ReceiptUtility.extractTransactionId(transactionReceipt:)` reads them.
@Suite struct TransactionReceiptTests {
    static func receipt(outer: (String) -> String = { "{\n\"purchase-info\" = \"\($0)\";\n}\n" }, inner: String)
        -> String
    {
        let purchaseInfo = Data(inner.utf8).base64EncodedString()
        return Data(outer(purchaseInfo).utf8).base64EncodedString()
    }

    @Test func appleLegacyTransactionVectorYieldsItsTransactionID() throws {
        #expect(
            TransactionReceipt.transactionID(base64: try TestResources.signedData("legacyTransaction")) == "33993399")
    }

    @Test func theTransactionIDIsReadAmongOtherEntries() {
        let inner = """
            {
            \t"original-purchase-date-pst" = "2012-04-30 08:05:55 America/Los_Angeles";
            \t"original-transaction-id" = "1000000046178817";
            \t"transaction-id" = "1000000046178818";
            \t"product-id" = "com.example.coins";
            }
            """
        let outer: (String) -> String = {
            "{\n\t\"signature\" = \"AApUdGVzdA==\";\n\t\"purchase-info\" = \"\($0)\";\n\t\"pod\" = \"100\";\n}"
        }
        #expect(
            TransactionReceipt.transactionID(base64: Self.receipt(outer: outer, inner: inner)) == "1000000046178818")
    }

    @Test(arguments: [
        #"{"transaction-id"="1";}"#,  // Apple requires whitespace around `=`
        #"{"transaction-id" = "1"}"#,  // and the closing `;`
        #"{"transaction-id" = "";}"#,
        #"{"transaction-id" = "1-2";}"#,  // a value of base64 characters only
        #"{"transaction_id" = "1";}"#,
        "",
    ])
    func innerTextWithoutAnAppleShapedTransactionIDYieldsNothing(inner: String) {
        #expect(TransactionReceipt.transactionID(base64: Self.receipt(inner: inner)) == nil)
    }

    @Test func theFirstWellFormedEntryWins() {
        let inner = #"{"transaction-id" = "bad!"; "transaction-id" = "42"; "transaction-id" = "43";}"#
        #expect(TransactionReceipt.transactionID(base64: Self.receipt(inner: inner)) == "42")
    }

    @Test(arguments: [
        "", "not base64 ~~", Data(#"{"purchase-info" = "!!!";}"#.utf8).base64EncodedString(),
        Data("no purchase info".utf8).base64EncodedString(), Data([0xFF, 0xFE, 0x00]).base64EncodedString(),
    ])
    func textThatIsNotATransactionReceiptYieldsNothing(text: String) {
        #expect(TransactionReceipt.transactionID(base64: text) == nil)
    }

    /// Many near-misses: a scan that went back over the text for each candidate would take minutes here, past the
    /// time limit; a linear one takes milliseconds. (The limit only ends a runaway; nothing measures time.)
    @Test(.timeLimit(.minutes(1))) func oversizedAndPathologicalInputIsBoundedAndLinear() {
        let oversized = String(repeating: "A", count: TransactionReceipt.maximumCharacters + 4)
        #expect(TransactionReceipt.transactionID(base64: oversized) == nil)
        // Many near-misses: every candidate key fails late, yet each is scanned once.
        let nearMisses = String(repeating: #""purchase-info" =                    "AAAA"   "#, count: 10_000)
        #expect(TransactionReceipt.transactionID(base64: Data(nearMisses.utf8).base64EncodedString()) == nil)
    }
}
