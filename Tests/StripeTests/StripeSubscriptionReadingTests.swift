import Foundation
import Stripe
import SubLedgerCore
import Testing

/// A subscription read back from Stripe, in the ledger's terms.
@Suite struct StripeSubscriptionReadingTests {
    static let day: Int64 = 86_400
    static let start: Int64 = 1_764_201_600  // 2025-11-27T00:00:00Z

    static func decode<T: Decodable>(_ type: T.Type, _ object: [String: Any]) throws -> T {
        try JSONDecoder().decode(T.self, from: JSONSerialization.data(withJSONObject: object))
    }

    static func subscription(
        status: String = "active", product: String = "prod_pro", unitAmount: Int = 999, currency: String = "usd",
        periodEnd: Int64 = start + 30 * day, cancelAtPeriodEnd: Bool = false, trialEnd: Int64? = nil,
        livemode: Bool = false,
        metadata: [String: String] = ["subledger_order": "order-1", "subledger_app": "com.example"],
        cancellationReason: String? = nil
    ) throws -> StripeSubscription {
        try decode(
            StripeSubscription.self,
            [
                "id": "sub_1", "object": "subscription", "customer": "cus_1", "status": status, "metadata": metadata,
                "cancel_at_period_end": cancelAtPeriodEnd, "created": start, "start_date": start,
                "livemode": livemode, "currency": currency, "trial_end": trialEnd.map { $0 as Any } ?? NSNull(),
                "cancellation_details": ["reason": cancellationReason.map { $0 as Any } ?? NSNull()],
                "items": [
                    "object": "list", "has_more": false,
                    "data": [
                        [
                            "id": "si_1", "quantity": 1, "current_period_start": periodEnd - 30 * day,
                            "current_period_end": periodEnd,
                            "price": [
                                "id": "price_1", "product": product, "unit_amount": unitAmount, "currency": currency,
                                "recurring": ["interval": "month", "interval_count": 1],
                            ],
                        ]
                    ],
                ],
            ])
    }

    static func invoice(
        _ id: String, paid: Int, from: Int64, to: Int64, product: String = "prod_pro", currency: String = "usd",
        status: String = "paid", prorationCredit: Int? = nil, totalTaxes: [Int]? = nil
    ) throws -> StripeInvoice {
        var lines: [[String: Any]] = [
            [
                "id": "il_\(id)", "amount": paid - (prorationCredit ?? 0), "period": ["start": from, "end": to],
                "pricing": ["price_details": ["price": "price_x", "product": product]],
            ]
        ]
        if let prorationCredit {
            lines.append([
                "id": "il_credit_\(id)", "amount": -prorationCredit, "period": ["start": from, "end": to],
                "pricing": ["price_details": ["price": "price_old", "product": "prod_old"]],
            ])
        }
        var object: [String: Any] = [
            "id": id, "object": "invoice", "status": status, "amount_paid": paid, "currency": currency,
            "created": from, "livemode": false, "billing_reason": "subscription_cycle",
            "lines": ["object": "list", "has_more": false, "data": lines],
            "parent": ["type": "subscription_details", "subscription_details": ["subscription": "sub_1"]],
            "status_transitions": ["paid_at": from],
        ]
        if let totalTaxes {
            // As API 2025-03-31.basil states them: one entry per tax rate.
            object["total_taxes"] = totalTaxes.map { amount -> [String: Any] in
                [
                    "amount": amount, "tax_behavior": "inclusive", "taxability_reason": "standard_rated",
                    "taxable_amount": paid - amount, "type": "tax_rate_details",
                    "tax_rate_details": ["tax_rate": "txr_1"],
                ]
            }
        }
        return try decode(StripeInvoice.self, object)
    }

    static func charge(amount: Int, refunded: Int = 0, disputed: Bool = false) throws -> StripeCharge {
        try decode(
            StripeCharge.self,
            [
                "id": "ch_1", "amount": amount, "amount_refunded": refunded, "refunded": refunded >= amount,
                "disputed": disputed, "currency": "usd", "created": start, "payment_intent": "pi_1",
            ])
    }

    let now = Instant(millisecondsSince1970: (start + 40 * day) * 1000)

    @Test func eachPaidInvoiceIsATransactionOfTheSubscriptionsChain() throws {
        let reading = StripeSubscriptionReading(
            subscription: try Self.subscription(periodEnd: Self.start + 60 * Self.day),
            invoices: [
                .init(invoice: try Self.invoice("in_1", paid: 999, from: Self.start, to: Self.start + 30 * Self.day)),
                .init(
                    invoice: try Self.invoice(
                        "in_2", paid: 999, from: Self.start + 30 * Self.day, to: Self.start + 60 * Self.day)),
                .init(invoice: try Self.invoice("in_3", paid: 0, from: Self.start, to: Self.start, status: "open")),
            ])
        let (transactions, renewal) = try reading.observation(observedAt: now)
        #expect(transactions.map(\.transactionID) == ["in_1", "in_2"])
        let first = try #require(transactions.first)
        #expect(first.chainID == "sub_1" && first.productID == "prod_pro" && first.store == .stripe)
        #expect(first.purchaseDate == Instant(millisecondsSince1970: Self.start * 1000))
        #expect(first.expiresDate == Instant(millisecondsSince1970: (Self.start + 30 * Self.day) * 1000))
        #expect(first.price == 9_990 && first.currency == "USD")
        #expect(first.accountHint == "order-1" && first.bundleID == "com.example")
        #expect(first.environment == .sandbox && first.revocationDate == nil && !first.isTrialPeriod)
        #expect(renewal.willAutoRenew && !renewal.isInBillingRetryPeriod)
        #expect(renewal.renewalDate == Instant(millisecondsSince1970: (Self.start + 60 * Self.day) * 1000))
        #expect(renewal.renewalPrice == 9_990 && renewal.autoRenewProductID == "prod_pro")
    }

    @Test func aZeroDecimalCurrencyIsPricedInWholeUnits() throws {
        let reading = StripeSubscriptionReading(
            subscription: try Self.subscription(unitAmount: 1_200, currency: "jpy"),
            invoices: [
                .init(
                    invoice: try Self.invoice(
                        "in_1", paid: 1_200, from: Self.start, to: Self.start + 30 * Self.day, currency: "jpy"))
            ])
        let (transactions, renewal) = try reading.observation(observedAt: now)
        #expect(transactions.first?.price == 1_200_000 && transactions.first?.currency == "JPY")
        #expect(renewal.renewalPrice == 1_200_000)
    }

    /// A charge whose balance transaction was expanded, as the customer's charges list returns it.
    static func charge(amount: Int, currency: String, balance: [String: Any]?) throws -> StripeCharge {
        try decode(
            StripeCharge.self,
            [
                "id": "ch_1", "amount": amount, "amount_refunded": 0, "refunded": false, "disputed": false,
                "currency": currency, "created": start, "payment_intent": "pi_1",
                "balance_transaction": balance.map { $0 as Any } ?? "txn_1",
            ])
    }

    @Test(arguments: [
        // 9.99 USD with a fee of 59 cents; 1,200 JPY (zero-decimal) with a fee of 65 yen; 9.990 KWD (three decimals).
        ("usd", 999, 59, Int64(590)), ("jpy", 1_200, 65, Int64(65_000)), ("kwd", 9_990, 320, Int64(320)),
    ])
    func stripesFeeIsTheChargesBalanceTransactionsInMilliunits(
        currency: String, amount: Int, fee: Int, milliunits: Int64
    ) throws {
        let balance: [String: Any] = [
            "id": "txn_1", "object": "balance_transaction", "amount": amount, "fee": fee, "net": amount - fee,
            "currency": currency,
        ]
        let reading = StripeSubscriptionReading(
            subscription: try Self.subscription(unitAmount: amount, currency: currency),
            invoices: [
                .init(
                    invoice: try Self.invoice(
                        "in_1", paid: amount, from: Self.start, to: Self.start + 30 * Self.day, currency: currency),
                    charge: try Self.charge(amount: amount, currency: currency, balance: balance))
            ])
        let transaction = try #require(try reading.observation(observedAt: now).transactions.first)
        #expect(transaction.processingFee == milliunits)
    }

    @Test func noFeeIsStatedWithoutTheBalanceTransactionOrInAnotherCurrency() throws {
        func fee(_ charge: StripeCharge) throws -> Int64? {
            let reading = StripeSubscriptionReading(
                subscription: try Self.subscription(),
                invoices: [
                    .init(
                        invoice: try Self.invoice("in_1", paid: 999, from: Self.start, to: Self.start + 30 * Self.day),
                        charge: charge)
                ])
            return try reading.observation(observedAt: now).transactions.first?.processingFee
        }
        // Only the id: not read.
        #expect(try fee(Self.charge(amount: 999, currency: "usd", balance: nil)) == nil)
        // Settled in euros: the fee is not in the sale's currency.
        let euros: [String: Any] = [
            "id": "txn_1", "object": "balance_transaction", "amount": 920, "fee": 52, "net": 868, "currency": "eur",
        ]
        #expect(try fee(Self.charge(amount: 999, currency: "usd", balance: euros)) == nil)
        // A negative fee is no fee.
        let negative: [String: Any] = [
            "id": "txn_1", "object": "balance_transaction", "amount": 999, "fee": -1, "net": 1000, "currency": "usd",
        ]
        #expect(try fee(Self.charge(amount: 999, currency: "usd", balance: negative)) == nil)
    }

    @Test(arguments: [
        // 9.99 USD with 1.60 of VAT; 1,200 JPY (zero-decimal) with 109 yen; 9.990 KWD (three decimals) with 0.476.
        ("usd", 999, [160], Int64(1_600)), ("jpy", 1_200, [109], Int64(109_000)), ("kwd", 9_990, [476], Int64(476)),
        // Two jurisdictions (a state's and a city's tax) are summed; an empty list is no tax.
        ("usd", 1_089, [64, 25], Int64(890)), ("usd", 999, [], Int64(0)),
    ])
    func theTaxIsTheInvoicesTotalTaxesInMilliunits(currency: String, paid: Int, taxes: [Int], milliunits: Int64)
        throws
    {
        let invoice = try Self.invoice(
            "in_1", paid: paid, from: Self.start, to: Self.start + 30 * Self.day, currency: currency,
            totalTaxes: taxes)
        let reading = StripeSubscriptionReading(
            subscription: try Self.subscription(unitAmount: paid, currency: currency),
            invoices: [.init(invoice: invoice)])
        let transaction = try #require(try reading.observation(observedAt: now).transactions.first)
        #expect(transaction.tax == milliunits)
    }

    @Test func noTaxIsStatedWithoutTotalTaxesOrOutOfRange() throws {
        func tax(_ taxes: [Int]?) throws -> Int64? {
            let invoice = try Self.invoice(
                "in_1", paid: 999, from: Self.start, to: Self.start + 30 * Self.day, totalTaxes: taxes)
            let reading = StripeSubscriptionReading(
                subscription: try Self.subscription(), invoices: [.init(invoice: invoice)])
            return try reading.observation(observedAt: now).transactions.first?.tax
        }
        #expect(try tax(nil) == nil)
        #expect(try tax([-1]) == nil)
        #expect(try tax([1_000]) == nil)  // more than the 999 paid
        #expect(try tax([Int.max, 1]) == nil)  // the sum overflows
    }

    @Test func aFreeInvoiceWithinTheTrialIsTheTrial() throws {
        let reading = StripeSubscriptionReading(
            subscription: try Self.subscription(status: "trialing", trialEnd: Self.start + 7 * Self.day),
            invoices: [
                .init(invoice: try Self.invoice("in_1", paid: 0, from: Self.start, to: Self.start + 7 * Self.day))
            ])
        let transaction = try #require(try reading.observation(observedAt: now).transactions.first)
        #expect(transaction.isTrialPeriod && transaction.price == 0)
    }

    @Test func aFullRefundRevokesAtTheRefundAndAPartialOneDoesNot() throws {
        let refund = try Self.decode(
            StripeRefund.self,
            [
                "id": "re_1", "amount": 999, "charge": "ch_1", "created": Self.start + 3 * Self.day,
                "status": "succeeded",
            ])
        let invoice = try Self.invoice("in_1", paid: 999, from: Self.start, to: Self.start + 30 * Self.day)
        let full = StripeSubscriptionReading(
            subscription: try Self.subscription(),
            invoices: [.init(invoice: invoice, charge: try Self.charge(amount: 999, refunded: 999), refunds: [refund])])
        let revoked = try #require(try full.observation(observedAt: now).transactions.first)
        #expect(revoked.revocationDate == Instant(millisecondsSince1970: (Self.start + 3 * Self.day) * 1000))
        let partial = StripeSubscriptionReading(
            subscription: try Self.subscription(),
            invoices: [.init(invoice: invoice, charge: try Self.charge(amount: 999, refunded: 300), refunds: [refund])])
        #expect(try partial.observation(observedAt: now).transactions.first?.revocationDate == nil)
    }

    @Test func partialRefundsAreKeptOldestFirstInMilliunitsUntilTheChargeIsRefundedInFull() throws {
        func refund(_ id: String, _ amount: Int, day: Int64, status: String = "succeeded") throws -> StripeRefund {
            try Self.decode(
                StripeRefund.self,
                [
                    "id": id, "amount": amount, "charge": "ch_1", "created": Self.start + day * Self.day,
                    "status": status,
                ])
        }
        func observed(refunded: Int, _ refunds: [StripeRefund]) throws -> Transaction {
            let invoice = try Self.invoice("in_1", paid: 999, from: Self.start, to: Self.start + 30 * Self.day)
            let reading = StripeSubscriptionReading(
                subscription: try Self.subscription(),
                invoices: [
                    .init(invoice: invoice, charge: try Self.charge(amount: 999, refunded: refunded), refunds: refunds)
                ])
            return try #require(try reading.observation(observedAt: now).transactions.first)
        }
        let partial = try observed(
            refunded: 300,
            [
                try refund("re_2", 200, day: 5), try refund("re_1", 100, day: 2),
                try refund("re_3", 50, day: 6, status: "failed"),
            ])
        #expect(partial.revocationDate == nil)
        #expect(
            partial.partialRefunds == [
                PartialRefund(date: Instant(millisecondsSince1970: (Self.start + 2 * Self.day) * 1000), amount: 1_000),
                PartialRefund(date: Instant(millisecondsSince1970: (Self.start + 5 * Self.day) * 1000), amount: 2_000),
            ])
        // The rest refunded: the revocation gives the whole price back, and no partial refund is stated beside it.
        let full = try observed(refunded: 999, [try refund("re_1", 100, day: 2), try refund("re_4", 899, day: 9)])
        #expect(full.revocationDate == Instant(millisecondsSince1970: (Self.start + 9 * Self.day) * 1000))
        #expect(full.partialRefunds == nil)
        #expect(try observed(refunded: 0, []).partialRefunds == nil)
    }

    @Test func theInvoiceBillingFromTheSubscriptionsStartStartsTheChainAndLaterOnesRenewIt() throws {
        let reading = StripeSubscriptionReading(
            subscription: try Self.subscription(periodEnd: Self.start + 60 * Self.day),
            invoices: [
                .init(invoice: try Self.invoice("in_1", paid: 999, from: Self.start, to: Self.start + 30 * Self.day)),
                .init(
                    invoice: try Self.invoice(
                        "in_2", paid: 999, from: Self.start + 30 * Self.day, to: Self.start + 60 * Self.day)),
            ])
        let transactions = try reading.observation(observedAt: now).transactions
        #expect(transactions.map(\.startsChain) == [true, false])
    }

    @Test func aLostDisputeRevokesAndAWonOneRestores() throws {
        func dispute(_ status: String) throws -> StripeDispute {
            try Self.decode(
                StripeDispute.self,
                ["id": "dp_1", "amount": 999, "charge": "ch_1", "created": Self.start + 5 * Self.day, "status": status])
        }
        let invoice = try Self.invoice("in_1", paid: 999, from: Self.start, to: Self.start + 30 * Self.day)
        for (status, revoked) in [("needs_response", false), ("lost", true), ("won", false)] {
            let reading = StripeSubscriptionReading(
                subscription: try Self.subscription(),
                invoices: [
                    .init(
                        invoice: invoice, charge: try Self.charge(amount: 999, disputed: true),
                        disputes: [try dispute(status)])
                ])
            let transaction = try #require(try reading.observation(observedAt: now).transactions.first)
            #expect((transaction.revocationDate != nil) == revoked, "\(status)")
        }
    }

    @Test func aPlanChangeUpgradesAwayFromTheEarlierProduct() throws {
        let reading = StripeSubscriptionReading(
            subscription: try Self.subscription(product: "prod_max"),
            invoices: [
                .init(
                    invoice: try Self.invoice(
                        "in_1", paid: 999, from: Self.start, to: Self.start + 30 * Self.day, product: "prod_pro")),
                .init(
                    invoice: try Self.invoice(
                        "in_2", paid: 1_500, from: Self.start + 10 * Self.day, to: Self.start + 30 * Self.day,
                        product: "prod_max", prorationCredit: 666)),
            ])
        let (transactions, renewal) = try reading.observation(observedAt: now)
        #expect(transactions.map(\.productID) == ["prod_pro", "prod_max"])
        #expect(transactions.map(\.isUpgraded) == [true, false])
        #expect(renewal.productID == "prod_max")
    }

    @Test(
        arguments: [
            ("active", false, nil, true, false),
            ("active", true, nil, false, false),
            ("past_due", false, nil, true, true),
            ("canceled", false, "cancellation_requested", false, false),
            ("unpaid", false, nil, false, false),
        ] as [(String, Bool, String?, Bool, Bool)])
    func renewalState(status: String, cancelAtPeriodEnd: Bool, reason: String?, renews: Bool, retrying: Bool) throws {
        let reading = StripeSubscriptionReading(
            subscription: try Self.subscription(
                status: status, cancelAtPeriodEnd: cancelAtPeriodEnd, cancellationReason: reason),
            invoices: [])
        let renewal = try reading.observation(observedAt: now).renewalInfo
        #expect(renewal.willAutoRenew == renews && renewal.isInBillingRetryPeriod == retrying)
        if reason == "cancellation_requested" { #expect(renewal.expirationIntent == 1) }
        if status == "unpaid" { #expect(renewal.expirationIntent == 2) }
    }

    @Test func liveModeIsProduction() throws {
        let reading = StripeSubscriptionReading(subscription: try Self.subscription(livemode: true), invoices: [])
        #expect(try reading.observation(observedAt: now).renewalInfo.environment == .production)
    }

    @Test func outOfRangeValuesAreRefused() throws {
        let huge = StripeSubscriptionReading(
            subscription: try Self.subscription(),
            invoices: [.init(invoice: try Self.invoice("in_1", paid: 999, from: Self.start, to: .max))])
        #expect(throws: StripeMappingError.self) { try huge.observation(observedAt: now) }
        let backwards = StripeSubscriptionReading(
            subscription: try Self.subscription(),
            invoices: [.init(invoice: try Self.invoice("in_1", paid: 999, from: Self.start, to: Self.start - 1))])
        #expect(throws: StripeMappingError.self) { try backwards.observation(observedAt: now) }
        let negative = StripeSubscriptionReading(
            subscription: try Self.subscription(),
            invoices: [.init(invoice: try Self.invoice("in_1", paid: -5, from: Self.start, to: Self.start + Self.day))])
        #expect(throws: StripeMappingError.self) { try negative.observation(observedAt: now) }
    }
}
