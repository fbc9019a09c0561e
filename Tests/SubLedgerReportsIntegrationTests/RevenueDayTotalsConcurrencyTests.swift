import CatalogFile
import Foundation
import LedgerTestSupport
import PostgresLibPQ
import SubLedgerCore
import SubLedgerStore
import SubLedgerTestSupport
import Testing

@testable import SubLedgerReports

/// `revenue_day_totals` (schema step 22) is shared by chains: applies that run at once on several connections renew
/// the same product on the same day, and report projectors that run at once add those chains to the same keys (16
/// shards of them). Their counts stay exact — equal, shard by shard, to `chain_money_facts` counted by the same
/// key — and no apply or projection fails (no deadlock: each writes its keys in key order).
@Suite struct RevenueDayTotalsConcurrencyTests {
    static let bundleID = CohortFactsAgreementTests.bundleID
    static let connections = 6
    static let chainsPerConnection = 8
    static let day: Int64 = 86_400_000
    /// 2024-05-01T00:00Z.
    static let base: Int64 = 1_714_521_600_000

    @Test func concurrentAppliesOfOneProductOnOneDayKeepTheTotalsExact() async throws {
        try await TestDatabase.withSchema(maxConnections: Self.connections, template: .ledger) { _, _, pool in
            try await Migrator.bundled(logger: ReportsDatabase.logger).migrate(pool)
            let store = LedgerStore(pool: pool)
            let catalogStore = CatalogStore(pool: pool)
            let (catalog, secrets) = try CatalogFile.read(CohortFactsAgreementTests.catalogYAML)
            try await catalogStore.applyCatalog(catalog, secrets: secrets)
            guard let app = try await catalogStore.app(bundleID: Self.bundleID) else {
                throw ReportError.unknownApp(Self.bundleID)
            }

            // Round 1: every chain buys pro.monthly on 2024-05-01 and renews on the same days as the others.
            // Round 2: each chain's receipt again, with one more renewal and its second period refunded (old facts
            // rows change: the totals lose and gain counts).
            for round in 1...2 {
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for connection in 0..<Self.connections {
                        group.addTask {
                            for index in 0..<Self.chainsPerConnection {
                                let (moment, input) = try Self.receipt(chain: connection * 100 + index, round: round)
                                try await store.apply(input, app: app, reference: .none, now: moment)
                            }
                        }
                    }
                    try await group.waitForAll()
                }
                // As many projectors as connections, a few chains per batch: they add to the same day's totals.
                try await ReportsDatabase.projectConcurrently(pool, projectors: Self.connections, batchSize: 4)
                #expect(try await MoneyFactsAgreementTests.totalsDisagreements(pool) == [], "round \(round)")
            }

            let chains = Int64(Self.connections * Self.chainsPerConnection)
            let firstDay = try await pool.query(
                """
                SELECT sum(sales)::bigint, count(DISTINCT shard) FROM revenue_day_totals WHERE kind = 0 AND day =
                    \(Int(Self.base / Self.day))::integer
                """
            ).first
            #expect(try firstDay?.decode(Int64.self, at: 0) == chains)
            #expect(try (firstDay?.decode(Int64.self, at: 1) ?? 0) > 1, "the chains share more than one shard")
            let refunds = try await pool.query("SELECT sum(sales)::bigint FROM revenue_day_totals WHERE kind = 1").first
            #expect(try refunds?.decode(Int64.self, at: 0) == chains)

            // The report from the totals equals the reference from the ledger.
            let scope = ReportScope(bundleID: Self.bundleID)
            try await pool.withConnection { connection in
                let from = Instant(millisecondsSince1970: Self.base + 3_600_000)
                let to = from.adding(milliseconds: 150 * 86_400_000)
                for granularity in RevenueReport.Granularity.allCases {
                    let totals = try Reports.revenue(
                        on: connection, scope: scope, from: from, to: to, granularity: granularity,
                        reportingCurrency: nil,
                        source: .dayTotals)
                    let ledger = try Reports.revenue(
                        on: connection, scope: scope, from: from, to: to, granularity: granularity,
                        reportingCurrency: nil,
                        source: .ledger)
                    #expect(totals == ledger, "\(granularity)")
                    #expect(!totals.rows.isEmpty)
                }
            }
        }
    }

    /// Chain `chain`'s receipt in `round`: monthly pro.monthly periods from 2024-05-01 (3 in round 1, 4 in round 2,
    /// the second refunded ten days in), each bought at the chain's own hour of the same day.
    static func receipt(chain: Int, round: Int) throws -> (Instant, LedgerInput) {
        let chainID = "cc\(chain)"
        let periods = round == 1 ? 3 : 4
        var transactions: [Transaction] = []
        for sequence in 0..<periods {
            let start = base + Int64(sequence) * 30 * day + Int64(chain % 20) * 3_600_000
            var transaction = Transaction(
                transactionID: "\(chainID)t\(sequence)", chainID: chainID, productID: "pro.monthly",
                bundleID: bundleID, purchaseDate: Instant(millisecondsSince1970: start),
                originalPurchaseDate: Instant(millisecondsSince1970: base),
                expiresDate: Instant(millisecondsSince1970: start + 30 * day),
                webOrderLineItemID: "w\(chainID)\(sequence)", subscriptionGroupID: "g1", environment: .production,
                source: .verifyReceipt, price: 9_990, currency: "USD", storefront: "USA")
            if round == 2, sequence == 1 {
                transaction.revocationDate = Instant(millisecondsSince1970: start + 10 * day)
                transaction.revocationReason = 1
            }
            transactions.append(transaction)
        }
        let observed = Instant(millisecondsSince1970: base + Int64(periods) * 30 * day - day)
        return (
            observed,
            LedgerInput(
                kind: .receipt, bundleID: bundleID, environment: .production, submitter: try AccountID("acct\(chain)"),
                transactions: transactions, renewalInfo: [], observedAt: observed)
        )
    }
}
