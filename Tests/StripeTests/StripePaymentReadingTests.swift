import Foundation
import Stripe
import SubLedgerCore
import Testing

/// A one-time purchase (a payment-mode Checkout Session's payment intent) read back from Stripe, in the ledger's terms.
@Suite struct StripePaymentReadingTests {
    static let start: Int64 = 1_764_201_600  // 2025-11-27T00:00:00Z

    static func decode<T: Decodable>(_ type: T.Type, _ object: [String: Any]) throws -> T {
        try JSONDecoder().decode(T.self, from: JSONSerialization.data(withJSONObject: object))
    }

    static func intent(
        status: String = "succeeded", livemode: Bool = false,
        metadata: [String: String] = [
            "subledger_order": "order-1", "subledger_app": "com.example", "subledger_product": "prod_gems",
        ]
    ) throws -> StripePaymentIntent {
        try decode(
            StripePaymentIntent.self,
            [
                "id": "pi_1", "object": "payment_intent", "status": status, "amount": 500, "currency": "usd",
                "customer": "cus_1", "latest_charge": "ch_1", "created": start, "livemode": livemode,
                "metadata": metadata,
            ])
    }

    static func charge(
        amount: Int = 500, currency: String = "usd", refunded: Int = 0, disputed: Bool = false, fee: Int? = nil
    ) throws -> StripeCharge {
        var object: [String: Any] = [
            "id": "ch_1", "object": "charge", "amount": amount, "amount_refunded": refunded,
            "refunded": refunded >= amount, "disputed": disputed, "currency": currency, "created": start + 5,
            "status": "succeeded", "payment_intent": "pi_1",
        ]
        if let fee {
            object["balance_transaction"] = [
                "id": "txn_1", "object": "balance_transaction", "amount": amount, "fee": fee, "currency": currency,
            ]
        }
        return try decode(StripeCharge.self, object)
    }

    static func refund(_ id: String, amount: Int, at created: Int64) throws -> StripeRefund {
        try decode(
            StripeRefund.self,
            ["id": id, "amount": amount, "charge": "ch_1", "created": created, "status": "succeeded"])
    }

    static func dispute(_ status: String, at created: Int64) throws -> StripeDispute {
        try decode(
            StripeDispute.self,
            ["id": "dp_1", "amount": 500, "charge": "ch_1", "created": created, "status": status])
    }

    @Test func aPaidPaymentIntentIsOneTransactionItsOwnChain() throws {
        let reading = StripePaymentReading(paymentIntent: try Self.intent(), charge: try Self.charge(fee: 45))
        let transaction = try #require(try reading.observation())
        #expect(transaction.transactionID == "pi_1" && transaction.chainID == "pi_1")
        #expect(transaction.productID == "prod_gems")
        #expect(transaction.bundleID == "com.example")
        #expect(transaction.quantity == 1)
        #expect(transaction.purchaseDate == Instant(millisecondsSince1970: (Self.start + 5) * 1000))
        #expect(transaction.originalPurchaseDate == transaction.purchaseDate)
        #expect(transaction.expiresDate == nil)
        #expect(transaction.revocationDate == nil)
        #expect(transaction.accountHint == "order-1")
        #expect(transaction.environment == .sandbox)
        #expect(transaction.source == .stripeAPI)
        #expect(transaction.price == 5_000 && transaction.currency == "USD")
        #expect(transaction.processingFee == 450)
        #expect(transaction.customerID == "cus_1" && transaction.paymentID == "ch_1")
    }

    @Test func aZeroDecimalCurrencyIsPricedInWholeUnits() throws {
        let reading = StripePaymentReading(
            paymentIntent: try Self.intent(), charge: try Self.charge(amount: 1200, currency: "jpy", fee: 65))
        let transaction = try #require(try reading.observation())
        #expect(transaction.price == 1_200_000 && transaction.currency == "JPY")
        #expect(transaction.processingFee == 65_000)
    }

    static func session(currency: String = "usd", total: Int = 500, tax: Int?) throws -> StripeCheckoutSession {
        try decode(
            StripeCheckoutSession.self,
            [
                "id": "cs_1", "object": "checkout.session", "mode": "payment", "status": "complete",
                "payment_intent": "pi_1", "currency": currency, "amount_total": total,
                "total_details": ["amount_discount": 0, "amount_shipping": 0, "amount_tax": tax as Any? ?? NSNull()],
            ])
    }

    @Test(arguments: [
        // 5.00 USD with 0.80 of tax; 1,200 JPY (zero-decimal) with 109 yen; 9.990 KWD (three decimals) with 0.476.
        ("usd", 500, 80, Int64(800)), ("jpy", 1_200, 109, Int64(109_000)), ("kwd", 9_990, 476, Int64(476)),
        ("usd", 500, 0, Int64(0)),
    ])
    func theTaxIsTheCheckoutSessionsAmountTaxInMilliunits(currency: String, amount: Int, tax: Int, milliunits: Int64)
        throws
    {
        let reading = StripePaymentReading(
            paymentIntent: try Self.intent(), charge: try Self.charge(amount: amount, currency: currency),
            session: try Self.session(currency: currency, total: amount, tax: tax))
        let transaction = try #require(try reading.observation())
        #expect(transaction.tax == milliunits)
    }

    @Test func noTaxIsStatedWithoutTheSessionOrOutOfRange() throws {
        func tax(_ session: StripeCheckoutSession?) throws -> Int64? {
            let reading = StripePaymentReading(
                paymentIntent: try Self.intent(), charge: try Self.charge(), session: session)
            return try reading.observation()?.tax
        }
        #expect(try tax(nil) == nil)
        #expect(try tax(Self.session(tax: nil)) == nil)
        #expect(try tax(Self.session(tax: -1)) == nil)
        #expect(try tax(Self.session(tax: 501)) == nil)  // more than the 500 charged
        #expect(try tax(Self.session(currency: "eur", tax: 80)) == nil)  // not the charge's currency
    }

    @Test(arguments: ["requires_payment_method", "processing", "canceled", "requires_action"])
    func aPaymentNotSucceededIsNoTransactionYet(status: String) throws {
        let reading = StripePaymentReading(paymentIntent: try Self.intent(status: status), charge: try Self.charge())
        #expect(try reading.observation() == nil)
    }

    @Test func aFullRefundRevokesAtTheLatestRefundAndAPartialOneDoesNot() throws {
        let partial = StripePaymentReading(
            paymentIntent: try Self.intent(), charge: try Self.charge(refunded: 200),
            refunds: [try Self.refund("re_1", amount: 200, at: Self.start + 100)])
        let kept = try #require(try partial.observation())
        #expect(kept.revocationDate == nil)
        #expect(kept.price == 5_000)
        let full = StripePaymentReading(
            paymentIntent: try Self.intent(), charge: try Self.charge(refunded: 500),
            refunds: [
                try Self.refund("re_1", amount: 200, at: Self.start + 100),
                try Self.refund("re_2", amount: 300, at: Self.start + 900),
            ])
        let revoked = try #require(try full.observation())
        #expect(revoked.revocationDate == Instant(millisecondsSince1970: (Self.start + 900) * 1000))
        #expect(revoked.revocationReason == 0)
    }

    @Test func aLostDisputeRevokesAtItsOpeningAndAWonOneDoesNot() throws {
        let won = StripePaymentReading(
            paymentIntent: try Self.intent(), charge: try Self.charge(disputed: true),
            disputes: [try Self.dispute("won", at: Self.start + 60)])
        #expect(try won.observation()?.revocationDate == nil)
        let lost = StripePaymentReading(
            paymentIntent: try Self.intent(), charge: try Self.charge(disputed: true),
            disputes: [try Self.dispute("lost", at: Self.start + 60)])
        #expect(try lost.observation()?.revocationDate == Instant(millisecondsSince1970: (Self.start + 60) * 1000))
    }

    @Test func liveModeIsProduction() throws {
        let reading = StripePaymentReading(paymentIntent: try Self.intent(livemode: true), charge: try Self.charge())
        #expect(try reading.observation()?.environment == .production)
    }

    @Test func aPaymentSubLedgerDidNotStartNamesNoProduct() throws {
        let reading = StripePaymentReading(paymentIntent: try Self.intent(metadata: [:]), charge: try Self.charge())
        #expect(reading.productID == nil && reading.bundleID == nil)
        #expect(throws: StripeMappingError(.missingField, "metadata.subledger_product")) {
            try reading.observation()
        }
    }

    @Test func outOfRangeValuesAreRefused() throws {
        let noCharge = StripePaymentReading(paymentIntent: try Self.intent())
        #expect(throws: StripeMappingError(.missingField, "latest_charge")) { try noCharge.observation() }
        let badProduct = StripePaymentReading(
            paymentIntent: try Self.intent(metadata: ["subledger_product": "has space"]), charge: try Self.charge())
        #expect(throws: StripeMappingError(.invalidField, "metadata.subledger_product")) {
            try badProduct.observation()
        }
        let negative = StripePaymentReading(paymentIntent: try Self.intent(), charge: try Self.charge(amount: -1))
        #expect(throws: StripeMappingError(.invalidField, "charge.amount")) { try negative.observation() }
        let badCurrency = StripePaymentReading(
            paymentIntent: try Self.intent(), charge: try Self.charge(currency: "us dollars"))
        #expect(throws: StripeMappingError(.invalidField, "charge.currency")) { try badCurrency.observation() }
    }

    @Test func aCheckoutSessionInPaymentModeLeadsToItsPaymentIntent() throws {
        let event = try Self.decode(
            StripeEvent.self,
            [
                "id": "evt_1", "type": "checkout.session.completed", "created": Self.start, "livemode": false,
                "data": [
                    "object": [
                        "object": "checkout.session", "id": "cs_1", "mode": "payment", "subscription": NSNull(),
                        "payment_intent": "pi_1", "client_reference_id": "order-1",
                    ]
                ],
            ])
        #expect(event.subject == .paymentIntent("pi_1"))
        let session = try Self.decode(
            StripeCheckoutSession.self,
            ["id": "cs_1", "mode": "payment", "status": "complete", "payment_intent": "pi_1"])
        #expect(session.paymentIntent?.id == "pi_1" && session.subscription == nil)
    }

    @Test func aOneTimePriceIsToldFromARecurringOne() throws {
        let once = try Self.decode(
            StripePrice.self,
            ["id": "price_1", "product": "prod_gems", "currency": "usd", "type": "one_time", "recurring": NSNull()])
        #expect(once.isOneTime)
        let monthly = try Self.decode(
            StripePrice.self,
            [
                "id": "price_2", "product": "prod_pro", "currency": "usd", "type": "recurring",
                "recurring": ["interval": "month"],
            ])
        #expect(!monthly.isOneTime)
    }
}
