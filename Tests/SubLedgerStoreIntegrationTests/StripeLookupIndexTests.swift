import LedgerTestSupport
import PostgresLibPQ
import SubLedgerCore
import SubLedgerTestSupport
import Testing

@testable import SubLedgerStore

/// Support's lookups by a Stripe customer or charge can use the partial indexes of schema step 52: their statement
/// names the indexes' predicate (`source = 'stripe_api'`) as a literal, so it matches whatever the plan.
@Suite struct StripeLookupIndexTests {
    private typealias F = LedgerFixtures

    @Test func lookupsByCustomerAndByChargeUseTheirIndexes() async throws {
        try await TestDatabase.withSchema(template: .ledger) { _, _, pool in
            try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
            let store = LedgerStore(pool: pool)
            let app = try await F.app(on: pool)
            // An app with a thousand App Store chains and no web sale: its Stripe lookups read no App Store row.
            let chains = (0..<1000).map { F.subscription("t\($0)", chain: "o\($0)", from: 0, to: 30) }
            try await store.apply(F.receipt(by: F.account("alice"), chains, on: 1), app: app, now: F.day(1))
            try await pool.query("ANALYZE transactions")
            // The literal in the statement is the source the ledger stores for Stripe's transactions.
            #expect(TransactionSource.stripeAPI.rawValue == "stripe_api")
            for (reference, index) in [
                (SupportStore.StripeID.customer, "transactions_stripe_customer"),
                (.charge, "transactions_stripe_payment"),
            ] {
                let statement = SupportStore.stripeChains(reference, id: "cus_Q1w2E3r4", appID: app.appID)
                let plan = try await pool.query("EXPLAIN (COSTS OFF) \(statement)").map {
                    try $0.decode(String.self, at: 0)
                }.joined(separator: "\n")
                #expect(plan.contains(index), "\(reference): \(plan)")
            }
        }
    }
}
