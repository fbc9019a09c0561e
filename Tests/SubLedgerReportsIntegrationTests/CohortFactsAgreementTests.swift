import CatalogFile
import Foundation
import PostgresLibPQ
import SeededRandom
import SubLedgerCore
import SubLedgerStore
import Testing

@testable import SubLedgerReports

/// The cohort reports read `chain_cohort_facts`, which `LedgerStore.apply` keeps per chain (schema step 17). On
/// randomized histories applied through `LedgerStore.apply` — payments with and without Apple's price (catalog
/// priced, unpriced), several currencies, free trials and paid intro offers, refunds and their reversals, upgrades,
/// Family Sharing, transfers to another account, month ends, and inputs arriving late and out of order — the
/// `retention` and `trials` reports from the aggregate equal the reference computation from the ledger's
/// transactions, for several ranges, month counts, reporting currencies and report dates; so does `retention` from
/// the per-cohort totals (schema step 21) for ranges on and off UTC month boundaries, and the totals equal the
/// facts summed per cohort, once the report projector has caught up. Projecting every chain of the app again
/// (`requeueReportAggregates`) leaves the aggregate unchanged (nothing counted twice), and after a catalog change
/// and a projection the reports from both aggregates still equal the ledger.
@Suite struct CohortFactsAgreementTests {
    /// The seed of the generator; `SUBLEDGER_COHORT_FACTS_SEED` replays another one.
    static let seed: UInt64 =
        ProcessInfo.processInfo.environment["SUBLEDGER_COHORT_FACTS_SEED"].flatMap { UInt64($0) } ?? 0xC0_4025
    static let histories = 3
    static let chainsPerHistory = 40

    static let bundleID = "com.example.cohortfacts"
    static let catalogYAML = """
        apps:
          - bundle_id: com.example.cohortfacts
            apple_app_id: 1999999999
            environments: [production, sandbox]
            products:
              - { product_id: pro.monthly, type: auto_renewable, subscription_group_id: "g1", group_level: 2, entitlements: [pro] }
              - { product_id: pro.yearly, type: auto_renewable, subscription_group_id: "g1", group_level: 3, entitlements: [pro] }
              - { product_id: premium.monthly, type: auto_renewable, subscription_group_id: "g1", group_level: 1, entitlements: [pro] }
              - { product_id: pass.30d, type: non_renewing, duration_days: 30, entitlements: [pro] }
        """

    /// Stands in for ingestion that fills schema step 14's price columns from what Apple sent (as the revenue
    /// work does when it writes a transaction), so that the aggregate written by `apply` sees them. Two scripts: Citus
    /// runs no script of several statements with DDL on a distributed table.
    static let fillRevenueColumnsTrigger = [
        """
        CREATE FUNCTION test_fill_revenue_columns() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN
            NEW.price_milliunits := (NEW.payload->'transaction'->>'price')::bigint;
            NEW.currency := NEW.payload->'transaction'->>'currency';
            NEW.offer_type := (NEW.payload->'transaction'->>'offerType')::integer;
            NEW.offer_discount_type := NEW.payload->'transaction'->>'offerDiscountType';
            NEW.is_trial_period := coalesce((NEW.payload->'transaction'->>'isTrialPeriod')::boolean, false);
            NEW.is_in_intro_offer_period := coalesce((NEW.payload->'transaction'->>'isInIntroOfferPeriod')::boolean, false);
            RETURN NEW;
        END $$
        """,
        """
        CREATE TRIGGER test_fill_revenue_columns BEFORE INSERT OR UPDATE ON transactions
            FOR EACH ROW EXECUTE FUNCTION test_fill_revenue_columns()
        """,
    ]

    @Test func cohortReportsFromTheAggregateEqualTheLedgerOnRandomHistories() async throws {
        var rng = SplitMix64(seed: Self.seed)
        let replay = "seed \(Self.seed) (replay with SUBLEDGER_COHORT_FACTS_SEED=\(Self.seed))"
        var compared = 0
        var cohorts = 0
        var starts = 0
        var disagreements: [String] = []
        for history in 0..<Self.histories {
            let inputs = try Self.randomInputs(history: history, using: &rng)
            try await ReportsDatabase.withMigratedSchema { pool in
                let (store, app) = try await Self.setUp(pool)
                for (moment, input) in inputs {
                    try await store.apply(input, app: app, reference: .none, now: moment)
                }
                try await ReportsDatabase.project(pool)
                let outcome = try await pool.withConnection { connection in
                    try Self.compareReports(on: connection, history: history)
                }
                compared += outcome.compared
                cohorts += outcome.cohorts
                starts += outcome.starts
                disagreements += outcome.disagreements
                disagreements += try await Self.totalsDisagreements(pool, history: history, when: "after the applies")
                let maintained = try await Self.aggregate(pool)
                let maintainedTotals = try await Self.totals(pool)
                try await store.requeueReportAggregates(app: app)
                try await ReportsDatabase.project(pool)
                let recomputed = try await Self.aggregate(pool)
                if maintained != recomputed {
                    disagreements.append(
                        "history \(history): the aggregate kept by the projector differs from a recompute (\(maintained.count) vs \(recomputed.count) rows)"
                    )
                }
                if try await Self.totals(pool) != maintainedTotals {
                    disagreements.append(
                        "history \(history): the totals kept by the projector differ from those of a recompute")
                }
                // A catalog change: the unpriced monthly payments get a price point, then the app is recomputed.
                try await pool.query(
                    """
                    INSERT INTO catalog_prices (app_id, product_id, storefront, currency, price_milliunits,
                        effective_from)
                    VALUES (\(app.appID), 'premium.monthly', NULL, 'JPY', 1500000, '2024-01-01'), (\(app.appID),
                        'pro.yearly', NULL, 'EUR', 64990, '2024-06-01')
                    """)
                try await store.requeueReportAggregates(app: app)
                try await ReportsDatabase.project(pool)
                let afterCatalog = try await pool.withConnection { connection in
                    try Self.compareRetention(on: connection, history: history)
                }
                compared += afterCatalog.compared
                disagreements += afterCatalog.disagreements.map { "after a catalog change: \($0)" }
                disagreements += try await Self.totalsDisagreements(
                    pool, history: history, when: "after a catalog change")
            }
        }
        print(
            "CohortFactsAgreementTests: \(replay), \(Self.histories) histories, \(compared) reports compared, "
                + "\(cohorts) retention cohorts, \(starts) offer starts, \(disagreements.count) disagreements")
        #expect(cohorts > 20, "\(replay): too few cohorts compared (\(cohorts))")
        #expect(starts > 10, "\(replay): too few offer starts compared (\(starts))")
        #expect(disagreements.isEmpty, "\(replay): \(disagreements.prefix(3).joined(separator: "\n"))")
    }

    /// The comparison catches a wrong total: one cohort's count of chains with one mask, or one money total, off by
    /// one makes `retention` from the totals differ from the ledger, and the totals differ from the facts summed.
    @Test func aDamagedTotalDisagreesWithTheLedger() async throws {
        var rng = SplitMix64(seed: Self.seed)
        let damages = [
            "UPDATE cohort_chain_totals SET chains = chains + 1 WHERE ctid = (SELECT ctid FROM cohort_chain_totals WHERE chains > 0 AND cohort < '2025-01-01' ORDER BY cohort, paid_mask DESC, shard LIMIT 1)",
            "UPDATE cohort_money_totals SET gross = gross + 1 WHERE ctid = (SELECT ctid FROM cohort_money_totals WHERE priced > 0 AND cohort < '2025-01-01' ORDER BY cohort, month, day, shard LIMIT 1)",
        ]
        let inputs = try Self.randomInputs(history: 0, using: &rng)
        try await ReportsDatabase.withMigratedSchema { pool in
            let (store, app) = try await Self.setUp(pool)
            for (moment, input) in inputs {
                try await store.apply(input, app: app, reference: .none, now: moment)
            }
            try await ReportsDatabase.project(pool)
            let clean = try await pool.withConnection { connection in
                try Self.compareRetention(on: connection, history: 0)
            }
            #expect(clean.disagreements.isEmpty, "\(clean.disagreements.prefix(1))")
            #expect(try await Self.totalsDisagreements(pool, history: 0, when: "clean").isEmpty)
            for damage in damages {
                let damaged = try await pool.withConnection { connection in
                    try connection.execute(script: "BEGIN; \(damage);")
                    defer { _ = try? connection.execute(script: "ROLLBACK") }
                    let totals = try connection.query(Self.totalsSQL).map { try $0.decode(String.self, at: 0) }
                    let summed = try connection.query(Self.totalsFromFactsSQL).map { try $0.decode(String.self, at: 0) }
                    return (try Self.compareRetention(on: connection, history: 0), totals == summed)
                }
                // Only the reports from the totals disagree; those from the facts alone do not.
                #expect(!damaged.0.disagreements.isEmpty, "not caught by the reports: \(damage)")
                #expect(
                    damaged.0.disagreements.allSatisfy { $0.contains("from totals") },
                    "\(damaged.0.disagreements.prefix(1))")
                #expect(!damaged.1, "not caught by the totals check: \(damage)")
            }
        }
    }

    /// Four connections apply chains of one cohort at once: the same months since the first payment, the same
    /// currencies and purchase days; four projectors then project them at once, so their refreshes add to the same
    /// totals, each taking back the chain's previous row and adding its new one, some refunded later. The totals
    /// still equal the facts summed, and `retention` from them equals the ledger.
    @Test func concurrentAppliesOfOneCohortKeepTheTotalsExact() async throws {
        try await ReportsDatabase.withMigratedSchema { pool in
            let (store, app) = try await Self.setUp(pool)
            let chains = 32
            try await withThrowingTaskGroup(of: Void.self) { group in
                for worker in 0..<4 {
                    group.addTask {
                        for index in stride(from: worker, to: chains, by: 4) {
                            for (moment, input) in Self.sameCohortInputs(chain: index) {
                                try await store.apply(input, app: app, reference: .none, now: moment)
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            // Four projectors at once, a few chains per batch: their refreshes add to the same totals.
            try await ReportsDatabase.projectConcurrently(pool, projectors: 4, batchSize: 3)
            let outcome = try await pool.withConnection { connection in
                try Self.compareRetention(on: connection, history: 0)
            }
            let totals = try await Self.totals(pool)
            #expect(totals.count > 10, "too few totals (\(totals.count))")
            #expect(try await Self.totalsDisagreements(pool, history: 0, when: "after concurrent applies").isEmpty)
            #expect(outcome.disagreements.isEmpty, "\(outcome.disagreements.prefix(1))")
        }
    }

    /// Chain `index` of the concurrent test: first paid on 2024-05-10 or 11, four to six monthly payments in USD or
    /// EUR, one receipt per payment in purchase order; every fifth chain's second payment refunded afterwards.
    static func sameCohortInputs(chain index: Int) -> [(Instant, LedgerInput)] {
        let chain = "same\(index)"
        let start = foundationDate(2024, 5, 10 + index % 2).addingTimeInterval(3_600)
        let currency = index % 3 == 0 ? "EUR" : "USD"
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        var inputs: [(Instant, LedgerInput)] = []
        var refund: (Instant, LedgerInput)?
        for sequence in 0..<(4 + index % 3) {
            let from = calendar.date(byAdding: .month, value: sequence, to: start)!
            let to = calendar.date(byAdding: .month, value: sequence + 1, to: start)!
            var transaction = Transaction(
                transactionID: "\(chain)t\(sequence)", chainID: chain, productID: "pro.monthly",
                bundleID: bundleID,
                purchaseDate: instant(from), originalPurchaseDate: instant(start),
                expiresDate: instant(to), webOrderLineItemID: "w\(chain)\(sequence)",
                subscriptionGroupID: "g1",
                ownershipType: .purchased, environment: .production, source: .verifyReceipt, price: 9_990,
                currency: currency)
            inputs.append(Self.receipt(account: "acct\(index)", [transaction], at: from))
            if sequence == 1, index % 5 == 0 {
                let refundedAt = from.addingTimeInterval(5 * 86_400)
                transaction.revocationDate = instant(refundedAt)
                transaction.revocationReason = 0
                refund = Self.receipt(account: "acct\(index)", [transaction], at: refundedAt)
            }
        }
        if let refund { inputs.append(refund) }
        return inputs
    }

    /// The share a random history's refund gives back, from its instant: not stated (the whole price), whole,
    /// or prorated (Apple's `revocationPercentage`, thousandths of a percent).
    static func refundPercentage(at instant: Instant) -> Int? {
        [nil, 25_000, 67_932, 15, 100_000, 0][Int((instant.millisecondsSince1970 / 1_000) % 6)]
    }

    static func receipt(account: String, _ transactions: [Transaction], at moment: Date) -> (Instant, LedgerInput) {
        let instant = Self.instant(moment)
        return (
            instant,
            LedgerInput(
                kind: .receipt, bundleID: bundleID, environment: .production, submitter: try! AccountID(account),
                transactions: transactions, renewalInfo: [], observedAt: instant)
        )
    }

    /// A migrated schema with this suite's catalog, the revenue-columns trigger, catalog price points and exchange
    /// rates: the store and the app to apply histories to.
    static func setUp(_ pool: PostgresPool) async throws -> (LedgerStore, StoredApp) {
        let store = LedgerStore(pool: pool)
        let catalogStore = CatalogStore(pool: pool)
        let (catalog, secrets) = try CatalogFile.read(Self.catalogYAML)
        try await catalogStore.applyCatalog(catalog, secrets: secrets)
        guard let app = try await catalogStore.app(bundleID: Self.bundleID) else {
            throw ReportError.unknownApp(Self.bundleID)
        }
        for script in Self.fillRevenueColumnsTrigger {
            try await pool.withConnection { try $0.execute(script: script) }
        }
        try await pool.query(
            """
            INSERT INTO catalog_prices (app_id, product_id, storefront, currency, price_milliunits, effective_from)
                VALUES
                (\(app.appID), 'pro.yearly', NULL, 'USD', 59990, '2023-01-01'), (\(app.appID), 'pro.yearly', NULL,
                    'USD', 69990, '2024-09-15'),
                (\(app.appID), 'pro.monthly', NULL, 'EUR', 8990, '2024-03-01');
            """)
        try await pool.query(
            """
            INSERT INTO exchange_rates (reporting_currency, currency, rate_date, rate) VALUES
                ('USD', 'EUR', '2024-01-01', 1.1), ('USD', 'EUR', '2024-10-01', 1.05), ('USD', 'JPY', '2024-06-01', 0.0067);
            """)
        return (store, app)
    }

    struct Outcome: Sendable {
        var compared = 0
        var cohorts = 0
        var starts = 0
        var disagreements: [String] = []
    }

    /// Every case of `retentionCases` (from the totals, from the facts alone, and from the ledger) and `trialsCases`
    /// (from the facts and from the ledger).
    static func compareReports(on connection: PostgresConnection, history: Int) throws -> Outcome {
        let scope = ReportScope(bundleID: bundleID)
        var outcome = try compareRetention(on: connection, history: history)
        for (from, to, granularity, now) in trialsCases {
            let facts = try Reports.trials(
                on: connection, scope: scope, from: from, to: to, granularity: granularity, now: now, source: .facts)
            let ledger = try Reports.trials(
                on: connection, scope: scope, from: from, to: to, granularity: granularity, now: now, source: .ledger)
            outcome.compared += 1
            outcome.starts += ledger.totalTrial.starts + ledger.totalIntro.starts
            if facts != ledger {
                outcome.disagreements.append(
                    "history \(history) trials \(from)..<\(to) \(granularity):\n  facts  \(facts.rows)\n  ledger \(ledger.rows)"
                )
            }
        }
        return outcome
    }

    /// Every case of `retentionCases`, from the totals and from the facts alone, each compared with the ledger.
    static func compareRetention(
        on connection: PostgresConnection, history: Int, scope: ReportScope = ReportScope(bundleID: bundleID)
    )
        throws -> Outcome
    {
        var outcome = Outcome()
        for (from, to, months, currency, now) in retentionCases {
            let ledger = try Reports.retention(
                on: connection, scope: scope, from: from, to: to, months: months, reportingCurrency: currency,
                now: now, source: .ledger)
            outcome.cohorts += ledger.cohorts.count
            for source in [CohortSource.totals, .facts] {
                let aggregate = try Reports.retention(
                    on: connection, scope: scope, from: from, to: to, months: months, reportingCurrency: currency,
                    now: now, source: source)
                outcome.compared += 1
                if aggregate != ledger {
                    outcome.disagreements.append(
                        "history \(history) retention from \(source) \(from)..<\(to) months \(months) \(currency ?? "-"):\n  \(source)  \(aggregate)\n  ledger \(ledger)"
                    )
                }
            }
        }
        return outcome
    }

    /// The per-cohort totals (schema step 21) summed over their shards, without the totals that are zero, as text in
    /// key order: `chains` then `money` rows.
    static func totals(_ pool: PostgresPool) async throws -> [String] {
        try await pool.query(Self.totalsSQL).map { try $0.decode(String.self, at: 0) }
    }

    /// The same sums computed from `chain_cohort_facts`.
    static func totalsFromFacts(_ pool: PostgresPool) async throws -> [String] {
        try await pool.query(Self.totalsFromFactsSQL).map { try $0.decode(String.self, at: 0) }
    }

    /// A disagreement when the totals differ from the facts summed per cohort; none when they agree.
    static func totalsDisagreements(_ pool: PostgresPool, history: Int, when: String) async throws -> [String] {
        let kept = try await totals(pool)
        let summed = try await totalsFromFacts(pool)
        guard kept != summed else { return [] }
        let missing = Set(summed).subtracting(kept).sorted().prefix(2)
        let extra = Set(kept).subtracting(summed).sorted().prefix(2)
        return [
            "history \(history) \(when): the totals differ from the facts summed (\(kept.count) vs \(summed.count) rows; facts only: \(missing); totals only: \(extra))"
        ]
    }

    static let totalsSQL: PostgresQuery = """
        SELECT line FROM (
            SELECT 0 AS part, concat_ws(' ', app_id, cohort, environment, paid_mask, sum(chains)) AS line
            FROM cohort_chain_totals GROUP BY app_id, cohort, environment, paid_mask HAVING sum(chains) <> 0
            UNION ALL
            SELECT 1, concat_ws(' ', app_id, cohort, environment, month, currency, day, sum(gross), sum(refunded),
                                sum(estimated), sum(unpriced), sum(priced))
            FROM cohort_money_totals GROUP BY app_id, cohort, environment, month, currency, day
            HAVING sum(unpriced) + sum(priced) <> 0 OR sum(gross) <> 0 OR sum(refunded) <> 0 OR sum(estimated) <> 0
        ) t ORDER BY part, line
        """

    /// The cohort of each chain is computed before the grouping: Citus groups rows of several workers by columns,
    /// and cannot push this expression down in a GROUP BY.
    static let totalsFromFactsSQL: PostgresQuery = """
        WITH facts AS (
            SELECT f.*, date_trunc('month', f.first_paid_at AT TIME ZONE 'UTC')::date AS cohort
            FROM chain_cohort_facts f WHERE f.first_paid_at IS NOT NULL
        )
        SELECT line FROM (
            SELECT 0 AS part, concat_ws(' ', app_id, cohort, environment, paid_mask, count(*)) AS line
            FROM facts GROUP BY app_id, cohort, environment, paid_mask
            UNION ALL
            SELECT 1, concat_ws(' ', f.app_id, f.cohort, f.environment, x.month, x.currency, x.day, sum(x.gross),
                                sum(x.refunded), sum(x.estimated), sum(x.unpriced), sum(x.priced))
            FROM facts f,
                 LATERAL (
                     SELECT u.month, coalesce(u.currency, '') AS currency, u.day, u.gross, u.refunded, u.estimated,
                            u.unpriced, u.priced
                     FROM unnest(f.money_months, f.money_currencies, f.money_days, f.money_gross, f.money_refunded,
                                 f.money_estimated, f.money_unpriced, f.money_priced)
                         AS u(month, currency, day, gross, refunded, estimated, unpriced, priced)
                 ) x
            GROUP BY f.app_id, f.cohort, f.environment, x.month, x.currency, x.day
        ) t ORDER BY part, line
        """

    /// The aggregate's rows as text, in key order.
    static func aggregate(_ pool: PostgresPool) async throws -> [String] {
        try await pool.query(
            "SELECT f::text FROM chain_cohort_facts f ORDER BY app_id, environment, original_transaction_id"
        )
        .map { try $0.decode(String.self, at: 0) }
    }

    /// Midnight UTC of `year`-`month`-`day`: the report cases' instants.
    static func date(_ year: Int, _ month: Int, _ day: Int) -> Instant {
        CohortFixtures.date(month, day, year: year)
    }

    /// The same midnight as a Foundation `Date`: the generated histories step through months and years of
    /// varying length with Foundation's calendar, and their moments become instants through `instant(_:)`.
    static func foundationDate(_ year: Int, _ month: Int, _ day: Int) -> Date {
        Date(timeIntervalSince1970: Double(date(year, month, day).millisecondsSince1970) / 1_000)
    }

    /// The instant of a generated history's moment (whole seconds, so exact).
    static func instant(_ date: Date) -> Instant {
        Instant(millisecondsSince1970: Int64(date.timeIntervalSince1970 * 1000))
    }

    static let retentionCases: [(Instant, Instant, Int, String?, Instant)] = [
        (date(2024, 1, 1), date(2026, 1, 1), 24, nil, date(2025, 9, 1)),
        (date(2024, 1, 1), date(2026, 1, 1), 24, "USD", date(2025, 9, 1)),
        (date(2024, 3, 10), date(2025, 2, 20), 6, "EUR", date(2025, 4, 17)),
        (date(2024, 1, 1), date(2025, 1, 1), 60, "USD", date(2030, 1, 1)),
        (date(2024, 6, 1), date(2024, 9, 1), 1, nil, date(2024, 8, 1)),
        // Cut at one end only, and within one month (no whole month: every chain from the facts).
        (date(2024, 2, 1), date(2024, 11, 15).adding(milliseconds: 3_600_000), 12, "USD", date(2025, 6, 1)),
        (date(2024, 4, 30).adding(milliseconds: 7_200_000), date(2024, 10, 1), 24, nil, date(2025, 6, 1)),
        (date(2024, 5, 3), date(2024, 5, 27), 3, "USD", date(2025, 1, 1)),
    ]

    static let trialsCases: [(Instant, Instant, TrialsReport.Granularity, Instant)] = [
        (date(2024, 1, 1), date(2026, 1, 1), .month, date(2025, 9, 1)),
        (date(2024, 1, 1), date(2026, 1, 1), .week, date(2024, 11, 3)),
        (date(2024, 5, 1), date(2024, 12, 1), .month, date(2024, 7, 2)),
    ]

    // MARK: - Random histories

    /// One history: each chain's transactions as receipts (one per version of a transaction, or the whole chain in
    /// one receipt), some delivered late, some out of order; each applied at its observation time.
    static func randomInputs(history: Int, using rng: inout SplitMix64) throws -> [(Instant, LedgerInput)] {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        var inputs: [(Instant, LedgerInput)] = []
        let currencies: [String?] = ["USD", "USD", "EUR", "JPY", nil]
        for index in 0..<chainsPerHistory {
            let chain = "h\(history)c\(index)"
            var account = "acct\(index % 29)"
            let family = Int.random(in: 0..<12, using: &rng) == 0
            let currency = currencies.randomElement(using: &rng)!
            var product = ["pro.monthly", "pro.monthly", "pro.yearly", "premium.monthly"].randomElement(using: &rng)!
            if Int.random(in: 0..<15, using: &rng) == 0 { product = "pass.30d" }
            var start = foundationDate(2024, Int.random(in: 1...12, using: &rng), Int.random(in: 1...28, using: &rng))
            if Bool.random(using: &rng) {
                start = calendar.date(
                    byAdding: .day, value: Int.random(in: 0...3, using: &rng),
                    to: calendar.date(
                        byAdding: .day, value: -1,
                        to: calendar.date(
                            byAdding: .month, value: 1, to: calendar.dateInterval(of: .month, for: start)!.start)!)!)!
            }
            start = start.addingTimeInterval(Double(Int.random(in: 0..<86_400, using: &rng)))
            var transactions: [Transaction] = []
            var sequence = 0
            func add(
                _ product: String, _ from: Date, _ to: Date, price: Int64?, trial: Bool = false, intro: Bool = false
            ) {
                sequence += 1
                transactions.append(
                    Transaction(
                        transactionID: "\(chain)t\(sequence)", chainID: chain, productID: product,
                        bundleID: bundleID,
                        purchaseDate: instant(from), originalPurchaseDate: instant(start),
                        expiresDate: product == "pass.30d" ? nil : instant(to),
                        webOrderLineItemID: "w\(chain)\(sequence)", subscriptionGroupID: "g1", isTrialPeriod: trial,
                        isInIntroOfferPeriod: intro,
                        offerType: trial || intro ? [1, 2, 3].randomElement(using: &rng)! : nil,
                        offerDiscountType: trial
                            ? (Bool.random(using: &rng) ? "FREE_TRIAL" : nil) : intro ? "PAY_AS_YOU_GO" : nil,
                        ownershipType: family ? .familyShared : .purchased, environment: .production,
                        source: .verifyReceipt,
                        price: trial ? 0 : price, currency: price == nil ? nil : currency))
            }
            var moment = start
            switch Int.random(in: 0..<10, using: &rng) {
            case 0, 1, 2:
                let end = calendar.date(byAdding: .day, value: 7, to: moment)!
                add(product, moment, end, price: nil, trial: true)
                moment = end
            case 3:
                let end = calendar.date(byAdding: .month, value: 1, to: moment)!
                add(product, moment, end, price: 990, intro: true)
                moment = end
            default: break
            }
            let renewals = Int.random(in: 0...16, using: &rng)
            let price: Int64? = [nil, 9_990, 14_990, 4_990].randomElement(using: &rng)!
            for _ in 0..<renewals {
                let length: Calendar.Component = product == "pro.yearly" ? .year : .month
                let end = calendar.date(byAdding: length, value: 1, to: moment)!
                add(product, moment, end, price: price)
                moment = end
                if Int.random(in: 0..<8, using: &rng) == 0 {
                    // Lapsed, then resubscribed later.
                    moment = moment.addingTimeInterval(Double(Int.random(in: 1...90, using: &rng)) * 86_400)
                }
                if product != "premium.monthly", Int.random(in: 0..<12, using: &rng) == 0 {
                    // Upgrade half-way: Apple revokes the current transaction with isUpgraded.
                    let at = moment.addingTimeInterval(-Double(Int.random(in: 1...10, using: &rng)) * 86_400)
                    transactions[transactions.count - 1].revocationDate = instant(at)
                    transactions[transactions.count - 1].isUpgraded = true
                    product = "premium.monthly"
                    moment = at
                }
            }
            // Deliveries: each transaction as first seen, and its later revocation (refund) or reversal.
            var deliveries: [(Date, [Transaction])] = []
            for transaction in transactions {
                let bought = Date(timeIntervalSince1970: Double(transaction.purchaseDate.millisecondsSince1970) / 1000)
                var first = transaction
                first.revocationDate = nil
                first.isUpgraded = false
                deliveries.append((bought, [first]))
                if let revoked = transaction.revocationDate {
                    deliveries.append(
                        (Date(timeIntervalSince1970: Double(revoked.millisecondsSince1970) / 1000), [transaction]))
                } else if Int.random(in: 0..<10, using: &rng) == 0 {
                    let refundedAt = bought.addingTimeInterval(Double(Int.random(in: 1...20, using: &rng)) * 86_400)
                    var refunded = transaction
                    refunded.revocationDate = instant(refundedAt)
                    refunded.revocationReason = 0
                    // Whole, or prorated (Apple's `revocationPercentage`), chosen without drawing from `rng`.
                    refunded.revocationPercentage = Self.refundPercentage(at: refunded.revocationDate!)
                    deliveries.append((refundedAt, [refunded]))
                    if Int.random(in: 0..<3, using: &rng) == 0 {
                        // The refund reversed: the transaction as it was.
                        deliveries.append((refundedAt.addingTimeInterval(86_400 * 3), [transaction]))
                    }
                }
            }
            if !transactions.isEmpty, Int.random(in: 0..<4, using: &rng) == 0 {
                // The whole chain in one late receipt instead.
                let last = deliveries.map(\.0).max()!.addingTimeInterval(
                    86_400 * Double(Int.random(in: 1...60, using: &rng)))
                var latest: [String: Transaction] = [:]
                for (_, batch) in deliveries {
                    for transaction in batch { latest[transaction.transactionID] = transaction }
                }
                deliveries = [(last, latest.values.sorted { $0.transactionID < $1.transactionID })]
            }
            for (at, batch) in deliveries {
                if Int.random(in: 0..<15, using: &rng) == 0 { account = "acct\(Int.random(in: 0..<29, using: &rng))" }
                // Some arrive late.
                let observed = at.addingTimeInterval(
                    Int.random(in: 0..<6, using: &rng) == 0 ? Double(Int.random(in: 1...40, using: &rng)) * 86_400 : 0)
                let moment = instant(observed)
                inputs.append(
                    (
                        moment,
                        LedgerInput(
                            kind: .receipt, bundleID: bundleID, environment: .production,
                            submitter: try AccountID(account),
                            transactions: batch, renewalInfo: [], observedAt: moment)
                    ))
            }
        }
        // Out of order: mostly by observation time, with neighbours swapped.
        inputs.sort { $0.0.millisecondsSince1970 < $1.0.millisecondsSince1970 }
        if inputs.count > 2 {
            for _ in 0..<(inputs.count / 5) {
                let i = Int.random(in: 0..<(inputs.count - 1), using: &rng)
                inputs.swapAt(i, i + 1)
            }
        }
        return inputs
    }
}
