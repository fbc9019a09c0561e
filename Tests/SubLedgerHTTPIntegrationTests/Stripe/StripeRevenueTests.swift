import Foundation
import SubLedgerCore
import SubLedgerReports
import SubLedgerStore
import SubLedgerUseCases
import Testing

/// Web sales in the revenue report: no store commission, and Stripe's processing fee as stripe-sim's balance
/// transactions state it, read back with the charges.
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
}
