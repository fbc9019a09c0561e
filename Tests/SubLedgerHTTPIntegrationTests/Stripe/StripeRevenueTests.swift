import Foundation
import StripeSimulator
import SubLedgerCore
import SubLedgerStore
import SubLedgerUseCases
import Testing

@testable import SubLedgerReports

/// Web sales in the revenue report: no store commission, Stripe's processing fee as stripe-sim's balance
/// transactions state it, read back with the charges, and the tax as Stripe states it on the invoice or the Checkout
/// Session.
@Suite struct StripeRevenueTests {
    typealias E2E = StripeEndToEndTests

    /// Stripe's fee on `charge` in minor units, as stripe-sim's balance transaction states it.
    static func fee(of charge: String, in context: E2E.Context) throws -> Int64 {
        let chargeJSON = try #require(context.sim.control.object(charge))
        let chargeObject = try #require(try JSONSerialization.jsonObject(with: chargeJSON) as? [String: Any])
        let balanceID = try #require(chargeObject["balance_transaction"] as? String)
        let balanceJSON = try #require(context.sim.control.object(balanceID))
        let balance = try #require(try JSONSerialization.jsonObject(with: balanceJSON) as? [String: Any])
        return Int64(try #require(balance["fee"] as? Int))
    }

    @Test func aWebSaleIsReportedWithStripesFeeAndNoCommissionAndARefundKeepsTheFee() async throws {
        try await E2E.run { c in
            let subscription = try await c.buy("alice")
            let firstCharge = try #require(c.sim.control.latestCharge(ofSubscription: subscription))
            await c.advance(days: 31)
            let renewalCharge = try #require(c.sim.control.latestCharge(ofSubscription: subscription))
            #expect(renewalCharge != firstCharge)
            try await c.sim.control.refund(charge: renewalCharge)
            #expect(try await c.transactions(of: subscription).count == 2)

            // Each stored sale carries its charge's fee (cents of USD in milli-units).
            let stored = try await c.h.pool.query(
                """
                SELECT (payload -> 'transaction' ->> 'processingFee')::bigint FROM transactions
                WHERE original_transaction_id = \(subscription) ORDER BY purchase_date
                """
            ).map { try $0.decode(Int64?.self, at: 0) }
            let fees = [try Self.fee(of: firstCharge, in: c), try Self.fee(of: renewalCharge, in: c)]
            #expect(fees.allSatisfy { $0 > 0 })
            #expect(stored == fees.map { $0 * 10 })

            let admin = try await APIKeys(store: APIKeyStore(pool: c.h.pool)).create(bundleID: nil, name: "ops").secret
            _ = try await ReportProjector(pool: c.h.pool).projectAll()
            let totalFee = (fees[0] + fees[1]) * 10
            // By day (the aggregates' whole days) and over a range cut inside a day (the facts at its edges): the
            // same figures.
            for query in ["from=2025-11-01&to=2026-02-01&by=month", "from=2025-11-26T12:00:00Z&to=2026-01-31&by=day"] {
                let revenue = try await c.h.client.call(.get, "/v1/admin/reports/revenue?" + query, key: admin)
                #expect(revenue.status == .ok, "\(revenue.json)")
                let totals = revenue.json["totals"] as? [[String: Any]] ?? []
                #expect(totals.count == 1 && totals.first?["currency"] as? String == "USD")
                let amounts = totals.first?["amounts"] as? [String: Any] ?? [:]
                #expect(amounts["gross_milli"] as? Int == 2 * 9_990)
                #expect(amounts["refunds_milli"] as? Int == 9_990)
                #expect(amounts["net_milli"] as? Int == 9_990)
                #expect(amounts["commission_milli"] as? Int == 0)
                #expect((amounts["processing_fee_milli"] as? Int).map(Int64.init) == totalFee)
                #expect((amounts["proceeds_milli"] as? Int).map(Int64.init) == 9_990 - totalFee)
                #expect(amounts["sales"] as? Int == 2 && amounts["refunds"] as? Int == 1)
            }
        }
    }

    /// The revenue report by month and the refunds report over the months around the sales, as the admin API answers.
    static func reports(_ h: StripeHarness) async throws -> (revenue: [String: Any], refunds: [String: Any]) {
        let admin = try await APIKeys(store: APIKeyStore(pool: h.pool)).create(bundleID: nil, name: "ops").secret
        _ = try await ReportProjector(pool: h.pool).projectAll()
        let range = "from=2025-11-01&to=2026-02-01"
        let revenue = try await h.client.call(.get, "/v1/admin/reports/revenue?\(range)&by=month", key: admin)
        #expect(revenue.status == .ok, "\(revenue.json)")
        let refunds = try await h.client.call(.get, "/v1/admin/reports/refunds?\(range)", key: admin)
        #expect(refunds.status == .ok, "\(refunds.json)")
        return (revenue.json, refunds.json)
    }

    /// The revenue report by day over the months around the sales is the same from the aggregates (with the partial
    /// refunds read beside them) as from the reference computation over the ledger's transactions.
    static func expectTheReferenceAgrees(_ h: StripeHarness) async throws {
        let from = Instant(millisecondsSince1970: 1_761_955_200_000)  // 2025-11-01
        let to = Instant(millisecondsSince1970: 1_769_904_000_000)  // 2026-02-01
        let reports = try await h.pool.withConnection { connection in
            try [MoneySource.ledger, .facts, .dayTotals].map { source in
                try Reports.revenue(
                    on: connection, scope: ReportScope(bundleID: nil), from: from, to: to, granularity: .day,
                    reportingCurrency: nil, source: source)
            }
        }
        #expect(reports[0].totals.first?.amounts.refundsMilli ?? 0 > 0)
        #expect(reports[1] == reports[0])
        #expect(reports[2] == reports[0])
    }

    /// The amounts of `currency` in `month` (`2025-11`) of the revenue report.
    static func month(_ month: String, _ revenue: [String: Any], currency: String = "USD") -> [String: Any] {
        let periods = revenue["periods"] as? [[String: Any]] ?? []
        let period = periods.first {
            ($0["period"] as? String)?.hasPrefix(month) == true && $0["currency"] as? String == currency
        }
        return period?["amounts"] as? [String: Any] ?? [:]
    }

    @Test func partialRefundsAreRefundsOnTheirOwnDaysAndKeepThePeriod() async throws {
        try await E2E.run { c in
            // Bought on 27 November; 1.00 refunded at once, 2.00 more five days later, in December.
            let subscription = try await c.buy("alice")
            let charge = try #require(c.sim.control.latestCharge(ofSubscription: subscription))
            try await c.sim.control.refund(charge: charge, amount: 100)
            await c.advance(days: 5)
            try await c.sim.control.refund(charge: charge, amount: 200)
            #expect(try await c.transactions(of: subscription).allSatisfy { $0.hasSuffix(" false") })
            #expect(try await c.h.entitlements("alice") == ["pro"])

            let fee = try Self.fee(of: charge, in: c) * 10
            let (revenue, refunds) = try await Self.reports(c.h)
            let totals = (revenue["totals"] as? [[String: Any]])?.first?["amounts"] as? [String: Any] ?? [:]
            #expect(totals["gross_milli"] as? Int == 9_990)
            #expect(totals["refunds_milli"] as? Int == 3_000)
            #expect(totals["net_milli"] as? Int == 6_990)
            #expect(totals["commission_milli"] as? Int == 0)
            #expect((totals["processing_fee_milli"] as? Int).map(Int64.init) == fee)
            #expect((totals["proceeds_milli"] as? Int).map(Int64.init) == 6_990 - fee)
            #expect(totals["sales"] as? Int == 1 && totals["refunds"] as? Int == 2)
            // Each refund in the month it was made.
            #expect(Self.month("2025-11", revenue)["refunds_milli"] as? Int == 1_000)
            #expect(Self.month("2025-12", revenue)["refunds_milli"] as? Int == 2_000)
            #expect(Self.month("2025-12", revenue)["gross_milli"] as? Int == 0)

            // The refunds report lists both, newest first, with what each gave back.
            let rows = refunds["rows"] as? [[String: Any]] ?? []
            #expect(rows.map { $0["refunded_milli"] as? Int } == [2_000, 1_000])
            #expect(rows.allSatisfy { $0["transaction_id"] as? String != nil && $0["price_milli"] as? Int == 9_990 })
            #expect(rows.allSatisfy { $0["account_id"] as? String == "alice" && $0["currency"] as? String == "USD" })
            let refundTotals = refunds["totals"] as? [String: Any] ?? [:]
            #expect(refundTotals["refunds"] as? Int == 2)
            let usd = (refundTotals["amounts"] as? [[String: Any]])?.first
            #expect(usd?["currency"] as? String == "USD" && usd?["amount_milli"] as? Int == 3_000)
            #expect(usd?["refunds"] as? Int == 2)
            try await Self.expectTheReferenceAgrees(c.h)
        }
    }

    @Test func aOneTimePurchasesPartialRefundInYenAndTheRestRefundedLaterCountTheWholePriceOnce() async throws {
        try await StripeOneTimeEndToEndTests.run { c in
            let intent = try await c.buy("alice", product: "prod_gems", price: c.gemsPrice)
            let charge = try #require(c.sim.control.latestCharge(ofPaymentIntent: intent))
            // 200 of the 500 yen given back: the gems stay.
            try await c.sim.control.refund(charge: charge, amount: 200)
            #expect(try await c.transactions(of: intent).allSatisfy { $0.hasSuffix(" false") })
            #expect(try await c.h.credits("alice") == 100)
            var (revenue, refunds) = try await Self.reports(c.h)
            var totals = (revenue["totals"] as? [[String: Any]])?.first?["amounts"] as? [String: Any] ?? [:]
            #expect(totals["gross_milli"] as? Int == 500_000)
            #expect(totals["refunds_milli"] as? Int == 200_000)
            #expect(totals["refunds"] as? Int == 1)
            #expect((refunds["rows"] as? [[String: Any]])?.map { $0["refunded_milli"] as? Int } == [200_000])
            try await Self.expectTheReferenceAgrees(c.h)

            // The rest refunded: the purchase is taken back, and its whole price counted once as refunded.
            await c.sim.control.advance(seconds: 86_400)
            try await c.sim.control.refund(charge: charge)
            #expect(try await c.transactions(of: intent).allSatisfy { $0.hasSuffix(" true") })
            (revenue, refunds) = try await Self.reports(c.h)
            totals = (revenue["totals"] as? [[String: Any]])?.first?["amounts"] as? [String: Any] ?? [:]
            #expect(totals["gross_milli"] as? Int == 500_000)
            #expect(totals["refunds_milli"] as? Int == 500_000)
            #expect(totals["net_milli"] as? Int == 0)
            let rows = refunds["rows"] as? [[String: Any]] ?? []
            #expect(rows.map { $0["refunded_milli"] as? Int } == [500_000])
            let refundTotals = refunds["totals"] as? [String: Any] ?? [:]
            #expect((refundTotals["amounts"] as? [[String: Any]])?.first?["amount_milli"] as? Int == 500_000)
            try await Self.expectTheReferenceAgrees(c.h)
        }
    }

    /// `id`'s object in stripe-sim.
    static func object(_ id: String, in sim: StripeSimulator) throws -> [String: Any] {
        let json = try #require(sim.control.object(id))
        return try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
    }

    /// The revenue report's totals of one currency over the months around the sales.
    static func totals(_ h: StripeHarness) async throws -> [String: Any] {
        let admin = try await APIKeys(store: APIKeyStore(pool: h.pool)).create(bundleID: nil, name: "ops").secret
        _ = try await ReportProjector(pool: h.pool).projectAll()
        let revenue = try await h.client.call(
            .get, "/v1/admin/reports/revenue?from=2025-11-01&to=2026-02-01&by=month", key: admin)
        #expect(revenue.status == .ok, "\(revenue.json)")
        let totals = revenue.json["totals"] as? [[String: Any]] ?? []
        #expect(totals.count == 1)
        return totals.first?["amounts"] as? [String: Any] ?? [:]
    }

    @Test func aSubscriptionsTaxIsTheInvoicesAndARefundGivesItBack() async throws {
        try await E2E.run { c in
            // 19 % VAT included in the price: of 9.99, 1.60 is tax.
            await c.sim.control.setAutomaticTax(ratePPM: 190_000, inclusive: true)
            let subscription = try await c.buy("alice")
            let firstCharge = try #require(c.sim.control.latestCharge(ofSubscription: subscription))
            await c.advance(days: 31)
            let renewalCharge = try #require(c.sim.control.latestCharge(ofSubscription: subscription))
            try await c.sim.control.refund(charge: renewalCharge)
            #expect(try await c.transactions(of: subscription).count == 2)

            // The sim's invoices state the tax in Stripe's shape; each stored sale carries it in milli-units.
            let invoices = try await c.h.pool.query(
                """
                SELECT transaction_id, (payload -> 'transaction' ->> 'tax')::bigint FROM transactions
                WHERE original_transaction_id = \(subscription) ORDER BY purchase_date
                """
            ).map { (try $0.decode(String.self, at: 0), try $0.decode(Int64?.self, at: 1)) }
            for (invoice, stored) in invoices {
                let object = try Self.object(invoice, in: c.sim)
                let taxes = try #require(object["total_taxes"] as? [[String: Any]])
                #expect(taxes.count == 1 && taxes.first?["tax_behavior"] as? String == "inclusive")
                #expect(taxes.first?["amount"] as? Int == 160 && object["total"] as? Int == 999)
                #expect(stored == 1_600)
            }
            let fees = [try Self.fee(of: firstCharge, in: c), try Self.fee(of: renewalCharge, in: c)]
            let totalFee = (fees[0] + fees[1]) * 10
            let amounts = try await Self.totals(c.h)
            #expect(amounts["gross_milli"] as? Int == 2 * 9_990)
            #expect(amounts["refunds_milli"] as? Int == 9_990)
            // Two sales' tax, less the refunded one's: the storefront rates play no part.
            #expect(amounts["tax_milli"] as? Int == 1_600)
            #expect(amounts["commission_milli"] as? Int == 0)
            #expect((amounts["processing_fee_milli"] as? Int).map(Int64.init) == totalFee)
            #expect((amounts["proceeds_milli"] as? Int).map(Int64.init) == 9_990 - 1_600 - totalFee)
        }
    }

    @Test func aOneTimePurchasesTaxIsTheCheckoutSessionsInYen() async throws {
        try await StripeOneTimeEndToEndTests.run { c in
            // 10 % added to the price: 500 yen of gems cost 550 yen, 50 of them tax.
            await c.sim.control.setAutomaticTax(ratePPM: 100_000, inclusive: false)
            let session = try await c.checkout("alice", product: "prod_gems", price: c.gemsPrice)
            let sessionObject = try Self.object(session, in: c.sim)
            let details = try #require(sessionObject["total_details"] as? [String: Any])
            #expect(details["amount_tax"] as? Int == 50 && sessionObject["amount_total"] as? Int == 550)
            let intent = try await c.sim.control.completeCheckout(session)
            let money = try await c.money(of: intent)
            #expect(money.price == 550_000 && money.currency == "JPY")
            let stored = try await c.h.pool.query(
                "SELECT (payload -> 'transaction' ->> 'tax')::bigint FROM transactions WHERE transaction_id = \(intent)"
            ).single().decode(Int64?.self, at: 0)
            #expect(stored == 50_000)

            let fee = try c.fee(of: intent) * 1_000
            let amounts = try await Self.totals(c.h)
            #expect(amounts["gross_milli"] as? Int == 550_000)
            #expect(amounts["tax_milli"] as? Int == 50_000)
            #expect(amounts["commission_milli"] as? Int == 0)
            #expect((amounts["proceeds_milli"] as? Int).map(Int64.init) == 550_000 - 50_000 - fee)
        }
    }
}
