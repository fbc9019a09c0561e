import AppStore
import AppStoreTestSupport
import SubLedgerCore
import Testing

/// Both transaction formats and both renewal formats go through one mapping to the core: each error names
/// the field as that format spells it, and the checks run in the same order for every format.
@Suite struct CoreMappingTests {
    /// Before 1970: no date Apple sends.
    static let impossible: Int64 = -1

    @Test func aReceiptEntryNamesItsOwnDateFieldWhenOneIsImpossible() {
        let cases: [(WritableKeyPath<ReceiptTransactionInfo, Int64?>, String)] = [
            (\.purchaseDateMS, "purchase_date_ms"), (\.originalPurchaseDateMS, "original_purchase_date_ms"),
            (\.expiresDateMS, "expires_date_ms"), (\.cancellationDateMS, "cancellation_date_ms"),
        ]
        for (date, field) in cases {
            var entry = ReceiptTransactionInfo(
                productID: "pro.monthly", transactionID: "1000", purchaseDateMS: 1_700_000_000_000)
            entry[keyPath: date] = Self.impossible
            #expect(throws: PayloadMappingError(.dateOutOfRange, field: field)) {
                try entry.coreTransaction(bundleID: "com.example", environment: .sandbox, source: .verifyReceipt)
            }
        }
    }

    @Test func aSignedTransactionNamesItsOwnDateFieldWhenOneIsImpossible() {
        let cases: [(WritableKeyPath<JWSTransactionDecodedPayload, Int64?>, String)] = [
            (\.purchaseDate, "purchaseDate"), (\.originalPurchaseDate, "originalPurchaseDate"),
            (\.expiresDate, "expiresDate"), (\.revocationDate, "revocationDate"), (\.signedDate, "signedDate"),
        ]
        for (date, field) in cases {
            var payload = TestChains.transaction()
            payload[keyPath: date] = Self.impossible
            #expect(throws: PayloadMappingError(.dateOutOfRange, field: field)) {
                try payload.coreTransaction(source: .signedTransaction)
            }
        }
    }

    @Test func aSignedTransactionLacksItsPurchaseDateBeforeItsEnvironmentIsRead() {
        var payload = TestChains.transaction()
        payload.rawEnvironment = "Elsewhere"
        payload.purchaseDate = nil
        #expect(throws: PayloadMappingError(.missingField, field: "purchaseDate")) {
            try payload.coreTransaction(source: .signedTransaction)
        }
        payload.purchaseDate = 1_700_000_000_000
        #expect(throws: PayloadMappingError(.unknownEnvironment, field: "environment")) {
            try payload.coreTransaction(source: .signedTransaction)
        }
    }

    @Test func signedRenewalInfoLacksItsSignedDateBeforeItsEnvironmentAndDatesAreRead() throws {
        var renewal = JWSRenewalInfoDecodedPayload(
            originalTransactionID: "1000", productID: "pro.monthly", gracePeriodExpiresDate: Self.impossible,
            rawEnvironment: "Elsewhere")
        #expect(throws: PayloadMappingError(.missingField, field: "signedDate")) { try renewal.coreRenewalInfo() }
        renewal.signedDate = Self.impossible
        #expect(throws: PayloadMappingError(.unknownEnvironment, field: "environment")) {
            try renewal.coreRenewalInfo()
        }
        renewal.rawEnvironment = "Sandbox"
        #expect(throws: PayloadMappingError(.dateOutOfRange, field: "gracePeriodExpiresDate")) {
            try renewal.coreRenewalInfo()
        }
        renewal.gracePeriodExpiresDate = nil
        renewal.renewalDate = Self.impossible
        #expect(throws: PayloadMappingError(.dateOutOfRange, field: "renewalDate")) { try renewal.coreRenewalInfo() }
        renewal.renewalDate = nil
        #expect(throws: PayloadMappingError(.dateOutOfRange, field: "signedDate")) { try renewal.coreRenewalInfo() }
        renewal.signedDate = 1_700_000_000_000
        #expect(try renewal.coreRenewalInfo().observedAt == Instant(millisecondsSince1970: 1_700_000_000_000))
    }

    /// A renewal price, currency or discount type out of bounds is dropped, as a transaction's is: the renewal state
    /// itself (auto-renew, billing retry) still applies.
    @Test func anOutOfRangeRenewalPriceOrCurrencyIsDroppedAndTheRenewalStateKept() throws {
        var renewal = JWSRenewalInfoDecodedPayload(
            originalTransactionID: "1", productID: "pro.monthly", rawAutoRenewStatus: 1, signedDate: 1_700_000_000_000,
            rawEnvironment: "Sandbox", currency: "USD", renewalPrice: 4_990, rawOfferDiscountType: "FREE_TRIAL")
        var mapped = try renewal.coreRenewalInfo()
        #expect(mapped.renewalPrice == 4_990 && mapped.currency == "USD" && mapped.offerDiscountType == "FREE_TRIAL")
        for (price, currency) in [
            (-1, "USD"), (Int64.max, "USD"), (4_990, "usd"), (4_990, "US\u{0}"), (4_990, "DOLLARS"),
        ] as [(Int64, String)] {
            renewal.renewalPrice = price
            renewal.currency = currency
            mapped = try renewal.coreRenewalInfo()
            #expect(mapped.willAutoRenew)
            #expect(price == 4_990 ? mapped.renewalPrice == 4_990 : mapped.renewalPrice == nil)
            #expect(currency == "USD" ? mapped.currency == "USD" : mapped.currency == nil)
        }
        renewal.rawOfferDiscountType = String(repeating: "X", count: 65)
        #expect(try renewal.coreRenewalInfo().offerDiscountType == nil)
    }

    @Test func pendingRenewalInfoNamesItsOwnFieldsAndIsObservedWhenTheReceiptWasRequested() throws {
        let requestedAt = Instant(millisecondsSince1970: 1_700_000_000_000)
        var renewal = PendingRenewalInfo(
            autoRenewProductID: "pro monthly", rawAutoRenewStatus: 1, originalTransactionID: "1000",
            productID: "pro.monthly")
        #expect(throws: PayloadMappingError(.invalidIdentifier, field: "auto_renew_product_id")) {
            try renewal.coreRenewalInfo(environment: .sandbox, observedAt: requestedAt)
        }
        renewal.autoRenewProductID = "pro.yearly"
        renewal.gracePeriodExpiresDateMS = Self.impossible
        #expect(throws: PayloadMappingError(.dateOutOfRange, field: "grace_period_expires_date_ms")) {
            try renewal.coreRenewalInfo(environment: .sandbox, observedAt: requestedAt)
        }
        renewal.gracePeriodExpiresDateMS = nil
        renewal.promotionalOfferID = "spring"
        let mapped = try renewal.coreRenewalInfo(environment: .sandbox, observedAt: requestedAt)
        #expect(mapped.observedAt == requestedAt)
        #expect(mapped.willAutoRenew)
        #expect(mapped.autoRenewProductID == "pro.yearly")
        #expect(mapped.offerType == OfferType.promotionalOffer.rawValue)
        #expect(mapped.offerIdentifier == "spring")
    }
}
