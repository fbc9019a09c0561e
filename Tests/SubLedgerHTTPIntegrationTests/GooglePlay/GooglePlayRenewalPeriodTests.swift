import GooglePlaySimulator
import SubLedgerCore
import SubLedgerStore
import Testing

/// Google's subscription answer states no start for a renewal's period; SubLedger reads it from the renewal's order.
/// That holds for every renewal a reading brings, also the newest token's latest order, which joins the reading of an
/// older token of the lineage (the chain's state is the newest token's). Estimated instead (expiry minus the average
/// period since the token's start), a renewal after a 31-day period and a 28-day one was dated 36 hours after the
/// previous period ended, and its owner read no entitlement for those 36 hours (simulation seed 175 of the Google Play
/// worlds).
@Suite struct GooglePlayRenewalPeriodTests {
    typealias G = GooglePlayPurchaseEndToEndTests

    func periods(_ h: G.Harness, chain: String) async throws -> [String: (start: Int64, end: Int64)] {
        var periods: [String: (start: Int64, end: Int64)] = [:]
        for row in try await h.pool.query(
            """
            SELECT transaction_id, (extract(epoch FROM purchase_date) * 1000)::bigint,
                (extract(epoch FROM expires_date) * 1000)::bigint
            FROM transactions WHERE original_transaction_id = \(chain)
            """)
        {
            periods[try row.decode(String.self, at: 0)] = (
                try row.decode(Int64.self, at: 1), try row.decode(Int64.self, at: 2)
            )
        }
        return periods
    }

    @Test func theNewestTokensRenewalReadWithAnOlderTokenStartsWhereItsPreviousPeriodEnded() async throws {
        try await G.run { h in
            let first = try await h.buy("pro", account: "alice")
            #expect(try await h.submit("alice", first).status == .ok)
            // Acknowledged, so Google keeps the purchase past three days.
            #expect(try await h.sender.runCycle().sent == 1)

            // Day 27: alice stops renewing and signs up again on the same Google account: a new token linked to the
            // first, on its chain, whose two periods differ in length (one month of 31 days, one of 28).
            _ = try await h.sim.control.advanceClock(ClockAdvanceRequest(days: 27))
            _ = try await h.sim.control.cancel(first.purchaseToken)
            let resigned = try await h.sim.control.changePlan(
                first.purchaseToken, ChangePlanRequest(productId: "pro", basePlanId: "monthly"))
            #expect(resigned.linkedPurchaseToken == first.purchaseToken)
            #expect(try await h.submit("alice", resigned).status == .ok)
            #expect(try await h.sender.runCycle().sent == 1)
            let firstEnd = try #require(resigned.expiryTime)

            // An hour into the new token's first renewal, the first (replaced) token is submitted again: its reading
            // carries the newest token's renewal, which SubLedger has not seen.
            _ = try await h.sim.control.advanceClock(
                ClockAdvanceRequest(milliseconds: firstEnd - h.now.millisecondsSince1970 + 3_600_000))
            let renewed = try h.sim.control.describe(resigned.purchaseToken)
            #expect(renewed.orderId == resigned.orderId + "..0")
            #expect(try await h.submit("alice", first).status == .ok)

            let stored = try await periods(h, chain: first.orderId)
            let renewal = try #require(stored[resigned.orderId + "..0"], "\(stored.keys.sorted())")
            #expect(renewal.start == firstEnd)
            #expect(renewal.end == renewed.expiryTime)
            #expect(renewal.end - renewal.start != firstEnd - (stored[resigned.orderId]?.start ?? 0))
            #expect(try await h.entitlements("alice") == ["pro"])
        }
    }
}
