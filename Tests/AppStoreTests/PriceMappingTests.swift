import AppStore
import AppStoreTestSupport
import SubLedgerCore
import Testing

/// Apple's price fields reach the core only when they are sane: a hostile price, currency or storefront is
/// dropped (the transaction is kept), never stored and never a reason to refuse the purchase.
@Suite struct PriceMappingTests {
    @Test func aSignedTransactionKeepsApplesPriceFields() throws {
        var payload = TestChains.transaction()
        payload.price = 9_990
        payload.currency = "USD"
        payload.storefront = "USA"
        let transaction = try payload.coreTransaction(source: .signedTransaction)
        #expect(transaction.price == 9_990)
        #expect(transaction.currency == "USD")
        #expect(transaction.storefront == "USA")
    }

    @Test(arguments: [
        (Int64(-1), "USD", "USA"), (Int64.max, "USD", "USA"), (Int64(1_000_000_000_000_001), "USD", "USA"),
        (Int64(9_990), "usd", "USA"), (Int64(9_990), "USDOLLAR", "USA"), (Int64(9_990), "USD", "US"),
        (Int64(9_990), "US\u{0}", "<b>"),
    ])
    func hostilePriceFieldsAreDroppedAndTheTransactionKept(price: Int64, currency: String, storefront: String) throws {
        var payload = TestChains.transaction()
        payload.price = price
        payload.currency = currency
        payload.storefront = storefront
        let transaction = try payload.coreTransaction(source: .signedTransaction)
        #expect(transaction.transactionID == payload.transactionID)
        let kept = [
            RevenueFieldRules.price(price) != nil, RevenueFieldRules.isCode(currency),
            RevenueFieldRules.isCode(storefront),
        ]
        #expect((transaction.price != nil) == kept[0])
        #expect((transaction.currency != nil) == kept[1])
        #expect((transaction.storefront != nil) == kept[2])
        #expect(kept.contains(false))
    }

    /// Apple's `revocationPercentage` (thousandths of a percent) reaches the core within 0...100 000; outside,
    /// it is dropped and the refund counts as whole: the revocation itself is kept.
    @Test(arguments: [(0, 0), (25_000, 25_000), (100_000, 100_000), (100_001, nil), (-1, nil), (Int(Int32.max), nil)])
    func aRevocationPercentageIsKeptWithinItsRange(stated: Int, kept: Int?) throws {
        var payload = TestChains.transaction()
        payload.revocationDate = payload.purchaseDate.map { $0 + 86_400_000 }
        payload.rawRevocationType = RevocationType.refundProrated.rawValue
        payload.revocationPercentage = stated
        let transaction = try payload.coreTransaction(source: .signedTransaction)
        #expect(transaction.revocationDate != nil)
        #expect(transaction.revocationPercentage == kept)
    }
}
