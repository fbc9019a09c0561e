import AppStore
import AppStoreTestSupport
import SubLedgerCore
import Testing

/// Identifiers inside Apple's payloads follow `IdentifierRule` where they are mapped to the core's values:
/// a 10 KB transaction id or a product id with NUL in it never reaches the ledger, the database or a report
/// (one 10 KB id in the ledger would stall the table reports for a minute).
@Suite struct AppleIdentifierBoundsTests {
    static let hostile: [String] = [
        String(repeating: "1", count: 10_000),
        String(repeating: " ", count: 70),
        "2000000000000001\u{0}",
        "2000000000000001\u{FFFD}",
        "20000000 00000001",
    ]

    @Test(arguments: hostile)
    func signedTransactionIdsBreakingTheRuleAreRefused(id: String) {
        var transaction = TestChains.transaction()
        transaction.transactionID = id
        #expect(throws: PayloadMappingError(.invalidIdentifier, field: "transactionId")) {
            try transaction.coreTransaction(source: .signedTransaction)
        }
        transaction = TestChains.transaction()
        transaction.originalTransactionID = id
        #expect(throws: PayloadMappingError(.invalidIdentifier, field: "originalTransactionId")) {
            try transaction.coreTransaction(source: .signedTransaction)
        }
        transaction = TestChains.transaction()
        transaction.productID = id + "\u{0}"
        #expect(throws: PayloadMappingError(.invalidIdentifier, field: "productId")) {
            try transaction.coreTransaction(source: .signedTransaction)
        }
        var renewal = TestChains.renewal()
        renewal.originalTransactionID = id
        #expect(throws: PayloadMappingError(.invalidIdentifier, field: "originalTransactionId")) {
            try renewal.coreRenewalInfo()
        }
    }

    @Test(arguments: hostile)
    func receiptTransactionIdsBreakingTheRuleAreRefused(id: String) {
        let entry = ReceiptTransactionInfo(
            quantity: 1, productID: "com.example.monthly", transactionID: id, originalTransactionID: "1",
            purchaseDateMS: 1_700_000_000_000)
        #expect(throws: PayloadMappingError(.invalidIdentifier, field: "transaction_id")) {
            try entry.coreTransaction(bundleID: "com.example", environment: .sandbox, source: .verifyReceipt)
        }
        let pending = PendingRenewalInfo(
            autoRenewProductID: "com.example.monthly", rawAutoRenewStatus: 1, originalTransactionID: id,
            productID: "com.example.monthly")
        #expect(throws: PayloadMappingError(.invalidIdentifier, field: "original_transaction_id")) {
            try pending.coreRenewalInfo(environment: .sandbox, observedAt: Instant(millisecondsSince1970: 0))
        }
    }

    @Test func applesOwnIdentifiersStillMap() throws {
        let transaction = try TestChains.transaction().coreTransaction(source: .signedTransaction)
        #expect(transaction.transactionID == "2000000000000001")
        #expect(transaction.chainID == "2000000000000000")
        #expect(transaction.productID == "com.example.monthly")
        var firstPurchase = TestChains.transaction()
        firstPurchase.originalTransactionID = ""
        #expect(
            try firstPurchase.coreTransaction(source: .signedTransaction).chainID == "2000000000000001")
        let renewal = try TestChains.renewal().coreRenewalInfo()
        #expect(renewal.autoRenewProductID == "com.example.monthly")
    }
}
