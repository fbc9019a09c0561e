import CatalogFile
import Foundation
import PostgresLibPQ
import SeededRandom
import SubLedgerCore
import SubLedgerStore
import Testing

@testable import SubLedgerReports

/// The money reports read `chain_money_facts` and `chain_mrr_moves`, which `LedgerStore.apply` keeps per chain
/// (schema step 19). On randomized histories applied through `LedgerStore.apply` — the cohort test's histories
/// (catalog-priced and unpriced payments, several currencies, free trials and intro offers, refunds whole and
/// prorated and their reversals, upgrades revoked by Apple, Family Sharing, transfers, late and out-of-order inputs) plus chains of
/// this suite's own: immediate upgrades whose revocation Apple has not sent (a prorated credit), more than a year
/// of paid service (15 %), lapses shorter and longer than 60 days, weekly and yearly plans, a currency change, tax
/// rates per storefront and a Small Business Program period — `mrr` and `revenue` from the aggregates equal the
/// reference computation from the ledger's transactions (`transaction_amounts` and the rules in Swift), for
/// several ranges, granularities, reporting currencies and report dates (months measured at their end and at
/// now), again after a catalog price change recomputes the app. A recompute of the whole app leaves the aggregates
/// unchanged. `revenue` is compared twice: from `chain_money_facts` alone, and as it runs (the whole days from the
/// per-day totals `revenue_day_totals`, schema step 22, the partial days at the edges from the facts), and the
/// totals equal the facts grouped by their key, shard by shard.
@Suite struct MoneyFactsAgreementTests {
    /// The seed of the generator; `SUBLEDGER_MONEY_FACTS_SEED` replays another one.
    static let seed: UInt64 =
        ProcessInfo.processInfo.environment["SUBLEDGER_MONEY_FACTS_SEED"].flatMap { UInt64($0) } ?? 0x4D0_4E59
    static let histories = 3
    static let ownChainsPerHistory = 30
    static let bundleID = CohortFactsAgreementTests.bundleID

    @Test func moneyReportsFromTheAggregatesEqualTheLedgerOnRandomHistories() async throws {
        var rng = SplitMix64(seed: Self.seed)
        let replay = "seed \(Self.seed) (replay with SUBLEDGER_MONEY_FACTS_SEED=\(Self.seed))"
        var outcome = Outcome()
        for history in 0..<Self.histories {
            try await Self.withHistory(history, using: &rng) { pool, store, app in
                outcome.add(
                    try await pool.withConnection { try Self.compareReports(on: $0, label: "history \(history)") })
                outcome.disagreements += try await Self.totalsDisagreements(pool).map { "history \(history): \($0)" }
                let maintained = try await Self.aggregates(pool)
                try await store.requeueReportAggregates(app: app)
                try await ReportsDatabase.project(pool)
                if try await Self.aggregates(pool) != maintained {
                    outcome.disagreements.append(
                        "history \(history): the aggregates kept by the projector differ from a recompute")
                }
                // A catalog price change: the app is requeued and projected again, and the reports still agree.
                try await pool.query(
                    """
                    INSERT INTO catalog_prices (app_id, product_id, storefront, currency, price_milliunits,
                        effective_from)
                    VALUES (\(app.appID), 'pro.monthly', NULL, 'EUR', 10990, '2025-02-01')
                    """)
                try await store.requeueReportAggregates(app: app)
                try await ReportsDatabase.project(pool)
                outcome.add(
                    try await pool.withConnection {
                        try Self.compareReports(on: $0, label: "history \(history) after a price change")
                    })
                outcome.disagreements += try await Self.totalsDisagreements(pool).map {
                    "history \(history) after a price change: \($0)"
                }
            }
        }
        print(
            "MoneyFactsAgreementTests: \(replay), \(Self.histories) histories, \(outcome.compared) reports compared, "
                + "\(outcome.mrrRows) MRR rows, \(outcome.revenueRows) revenue rows, \(outcome.credits) upgrade credits, "
                + "\(outcome.secondYear) second-year sales, \(outcome.committedRows) rows with committed MRR, "
                + "\(outcome.disagreements.count) disagreements")
        #expect(outcome.mrrRows > 100, "\(replay): too few MRR rows compared (\(outcome.mrrRows))")
        #expect(outcome.revenueRows > 100, "\(replay): too few revenue rows compared (\(outcome.revenueRows))")
        #expect(outcome.credits > 0 && outcome.secondYear > 0, "\(replay): no upgrade credit or second-year sale")
        #expect(outcome.committedRows > 10, "\(replay): too few MRR rows with committed MRR (\(outcome.committedRows))")
        #expect(outcome.disagreements.isEmpty, "\(replay): \(outcome.disagreements.prefix(3).joined(separator: "\n"))")
    }

    /// The comparison is not vacuous: one wrong row in any of the aggregates makes the reports disagree.
    @Test func aBrokenAggregateMakesTheReportsDisagree() async throws {
        var rng = SplitMix64(seed: Self.seed)
        try await Self.withHistory(0, using: &rng) { pool, _, _ in
            let clean = try await pool.withConnection { try Self.compareReports(on: $0, label: "clean") }
            #expect(clean.disagreements.isEmpty)
            let breakages = [
                "UPDATE chain_money_facts SET second_year = NOT second_year WHERE (original_transaction_id, transaction_id) = "
                    + "(SELECT original_transaction_id, transaction_id FROM chain_money_facts WHERE amount_milli > 0 "
                    // after the program
                    + "AND currency IS NOT NULL AND purchase_ms BETWEEN 1740787200000 AND 1767225600000 "
                    + "ORDER BY transaction_id LIMIT 1)",
                "UPDATE chain_mrr_moves SET mrr_delta = mrr_delta + 1 WHERE (original_transaction_id, month) = "
                    + "(SELECT original_transaction_id, month FROM chain_mrr_moves WHERE month >= '2024-06-01' ORDER BY 1, 2 LIMIT 1)",
                // A subscriber counted committed a month early or late: only the committed figures change.
                "UPDATE chain_mrr_moves SET committed_subscribers_delta = committed_subscribers_delta + 1 "
                    + "WHERE (original_transaction_id, month, currency) = (SELECT original_transaction_id, month, currency "
                    + "FROM chain_mrr_moves WHERE committed_subscribers_delta <> 0 AND month >= '2024-06-01' "
                    + "AND month < '2026-12-01' ORDER BY 1, 2, 3 LIMIT 1)",
                "UPDATE chain_mrr_moves SET committed_mrr_delta = committed_mrr_delta - 1 "
                    + "WHERE (original_transaction_id, month, currency) = (SELECT original_transaction_id, month, currency "
                    + "FROM chain_mrr_moves WHERE committed_mrr_delta <> 0 AND month >= '2024-06-01' "
                    + "AND month < '2026-12-01' ORDER BY 1, 2, 3 LIMIT 1)",
                // A step (a start or a change, not a stop) of the current month of an MRR case measured at now
                // (2025-09-17T13:00Z).
                "UPDATE chain_mrr_steps SET mrr_delta = mrr_delta + 1 WHERE (original_transaction_id, at_ms, currency) = "
                    + "(SELECT original_transaction_id, at_ms, currency FROM chain_mrr_steps WHERE subscribers_delta >= 0 "
                    + "AND at_ms > 1756684799999 AND at_ms <= 1758114000000 ORDER BY 1, 2, 3 LIMIT 1)",
                // One more sale in one shard's count of a whole day (2024-03-11 to 2024-06-30) of a priced sale.
                "UPDATE revenue_day_totals SET sales = sales + 1 WHERE ctid = "
                    + "(SELECT ctid FROM revenue_day_totals WHERE kind = 0 AND sales > 0 AND amount_milli > 0 "
                    + "AND currency IS NOT NULL AND day BETWEEN 19793 AND 19904 ORDER BY day, product_id, shard LIMIT 1)",
            ]
            for breakage in breakages {
                let broken = try await pool.withConnection { connection in
                    try connection.execute(script: "BEGIN")
                    let changed = try connection.query(PostgresQuery(unsafeSQL: breakage + " RETURNING 1")).count
                    #expect(changed == 1, "nothing to break: \(breakage)")
                    defer { _ = try? connection.execute(script: "ROLLBACK") }
                    return (
                        try Self.compareReports(on: connection, label: "broken"),
                        try Self.totalsDisagreements(on: connection)
                    )
                }
                #expect(!broken.0.disagreements.isEmpty, "not caught: \(breakage)")
                // The totals check catches a damaged totals row, and a facts row changed without its totals.
                if breakage.contains("revenue_day_totals") || breakage.contains("chain_money_facts") {
                    #expect(!broken.1.isEmpty, "not caught by the totals check: \(breakage)")
                }
            }
        }
    }

    // MARK: - Setup

    /// A fresh schema with the catalog, prices, rates, a Small Business Program period and one random history
    /// applied through `LedgerStore.apply`.
    static func withHistory(
        _ history: Int, using rng: inout SplitMix64,
        _ body: (PostgresPool, LedgerStore, StoredApp) async throws -> Void
    ) async throws {
        var inputs = try CohortFactsAgreementTests.randomInputs(history: history, using: &rng)
        inputs += try ownInputs(history: history, using: &rng)
        inputs.sort { $0.0.millisecondsSince1970 < $1.0.millisecondsSince1970 }
        if inputs.count > 2 {
            for _ in 0..<(inputs.count / 6) {
                let i = Int.random(in: 0..<(inputs.count - 1), using: &rng)
                inputs.swapAt(i, i + 1)
            }
        }
        try await ReportsDatabase.withMigratedSchema { pool in
            let store = LedgerStore(pool: pool)
            let catalogStore = CatalogStore(pool: pool)
            let settings = RevenueSettingsStore(pool: pool)
            let (catalog, secrets) = try CatalogFile.read(CohortFactsAgreementTests.catalogYAML)
            try await catalogStore.applyCatalog(catalog, secrets: secrets)
            guard let app = try await catalogStore.app(bundleID: bundleID) else {
                throw ReportError.unknownApp(bundleID)
            }
            try await pool.query(
                """
                INSERT INTO catalog_prices (app_id, product_id, storefront, currency, price_milliunits, effective_from)
                    VALUES
                    (\(app.appID), 'pro.yearly', NULL, 'USD', 59990, '2023-01-01'), (\(app.appID), 'pro.yearly', NULL,
                        'USD', 69990, '2024-09-15'),
                    (\(app.appID), 'pro.monthly', NULL, 'EUR', 8990, '2024-03-01'), (\(app.appID), 'pro.monthly',
                        'GBR', 'GBP', 7990, '2024-01-01');
                """)
            _ = try await settings.applyExchangeRates(
                try RateFile.exchangeRates(
                    "2024-01-01,EUR,1.1\n2024-10-01,EUR,1.05\n2024-06-01,JPY,0.0067\n2024-03-01,GBP,1.27"),
                reportingCurrency: "USD")
            _ = try await settings.applyTaxRates(
                try RateFile.taxRates("GBR,2024-01-01,0.166667\nDEU,2024-07-01,0.159664"))
            try await settings.setSmallBusinessPeriod(
                SmallBusinessPeriod(
                    fromDay: CalendarDay.parse("2024-09-01")!, untilDay: CalendarDay.parse("2025-03-01")!),
                bundleID: bundleID)
            for (moment, input) in inputs {
                try await store.apply(input, app: app, reference: .none, now: moment)
            }
            try await ReportsDatabase.project(pool)
            try await body(pool, store, app)
        }
    }

    /// This suite's own chains (`m…`): immediate upgrades with no revocation yet, long paid service, lapses,
    /// weekly and yearly plans, currency changes, storefronts with tax, and monthly plans with a 12-month commitment
    /// (committed MRR), some of which go on without one after their commitment.
    ///
    /// The commitment plans are drawn from a generator of their own, so the rest of each history stays as it was.
    static func ownInputs(history: Int, using rng: inout SplitMix64) throws -> [(Instant, LedgerInput)] {
        let day: Int64 = 86_400_000
        let base = Int64(1_704_067_200_000)  // 2024-01-01
        var inputs: [(Instant, LedgerInput)] = []
        let places: [(String?, String?)] = [
            ("USD", "USA"), ("GBP", "GBR"), ("EUR", "DEU"), ("EUR", "FRA"), (nil, "GBR"),
        ]
        for index in 0..<ownChainsPerHistory {
            let chain = "h\(history)m\(index)"
            var (currency, storefront) = places.randomElement(using: &rng)!
            var product = ["pro.monthly", "pro.yearly", "premium.monthly"].randomElement(using: &rng)!
            let weekly = Int.random(in: 0..<6, using: &rng) == 0
            var moment = base + Int64.random(in: 0..<400, using: &rng) * day + Int64.random(in: 0..<day, using: &rng)
            var transactions: [Transaction] = []
            let periods = Int.random(in: 1...30, using: &rng)
            var plans = SplitMix64(seed: Self.seed ^ UInt64(history * 1_000 + index))
            let committed = !weekly && product != "pro.yearly" && Int.random(in: 0..<3, using: &plans) == 0
            let committedPeriods = Bool.random(using: &plans) ? 12 : periods
            for sequence in 0..<periods {
                let length: Int64 =
                    weekly
                    ? 7 * day : product == "pro.yearly" ? 365 * day : [30, 31, 28].randomElement(using: &rng)! * day
                let price: Int64? =
                    currency == nil
                    ? nil
                    : weekly ? 2_990 : product == "pro.yearly" ? 99_990 : [9_990, 14_990].randomElement(using: &rng)!
                var transaction = Transaction(
                    transactionID: "\(chain)t\(sequence)", chainID: chain, productID: product,
                    bundleID: bundleID,
                    purchaseDate: Instant(millisecondsSince1970: moment),
                    originalPurchaseDate: Instant(millisecondsSince1970: base),
                    expiresDate: Instant(millisecondsSince1970: moment + length),
                    webOrderLineItemID: "w\(chain)\(sequence)", subscriptionGroupID: "g1", environment: .production,
                    source: .verifyReceipt, price: price, currency: price == nil ? nil : currency,
                    storefront: storefront)
                if committed, sequence < committedPeriods {
                    let start = moment - Int64(sequence % 12) * 30 * day
                    transaction.billingPlanType = BillingPlan.committed
                    transaction.commitment = TransactionCommitment(
                        billingPeriodNumber: sequence % 12 + 1, totalBillingPeriods: 12,
                        expiresDate: Instant(millisecondsSince1970: start + 360 * day))
                }
                if Int.random(in: 0..<25, using: &rng) == 0 {
                    transaction.revocationDate = Instant(
                        millisecondsSince1970: moment + Int64.random(in: 1...10, using: &rng) * day)
                    transaction.revocationReason = 1
                    transaction.revocationPercentage = CohortFactsAgreementTests.refundPercentage(
                        at: transaction.revocationDate!)
                }
                transactions.append(transaction)
                moment += length
                switch Int.random(in: 0..<14, using: &rng) {
                case 0: moment += Int64.random(in: 1...50, using: &rng) * day  // a short lapse: the count resumes
                case 1: moment += Int64.random(in: 61...120, using: &rng) * day  // a long one: it restarts
                case 2 where transaction.revocationDate == nil:
                    // An immediate upgrade: the next period starts inside this one; Apple's revocation not seen.
                    moment -=
                        Int64.random(in: 1...(length / day - 1), using: &rng) * day
                        + Int64.random(in: 0..<day, using: &rng)
                    product = product == "pro.monthly" ? "premium.monthly" : "pro.monthly"
                case 3:
                    (currency, storefront) = places.randomElement(using: &rng)!
                default: break
                }
            }
            // One receipt per transaction, or all in one late receipt.
            var batches: [(Int64, [Transaction])] = transactions.map {
                ($0.purchaseDate.millisecondsSince1970 + 1_000, [$0])
            }
            if Bool.random(using: &rng) {
                batches = [(moment + Int64.random(in: 1...30, using: &rng) * day, transactions)]
            }
            for (at, batch) in batches {
                let observed = Instant(millisecondsSince1970: at)
                inputs.append(
                    (
                        observed,
                        LedgerInput(
                            kind: .receipt, bundleID: bundleID, environment: .production,
                            submitter: try AccountID("acct\(index % 17)"), transactions: batch, renewalInfo: [],
                            observedAt: observed)
                    ))
            }
        }
        return inputs
    }

    // MARK: - Comparison

    struct Outcome: Sendable {
        var compared = 0
        var mrrRows = 0
        var revenueRows = 0
        var credits = 0
        var secondYear = 0
        /// MRR rows with committed MRR.
        var committedRows = 0
        var disagreements: [String] = []

        mutating func add(_ other: Outcome) {
            committedRows += other.committedRows
            compared += other.compared
            mrrRows += other.mrrRows
            revenueRows += other.revenueRows
            credits += other.credits
            secondYear += other.secondYear
            disagreements += other.disagreements
        }
    }

    static func date(_ year: Int, _ month: Int, _ day: Int, _ hour: Int = 0) -> Instant {
        CohortFixtures.date(month, day, year: year).adding(milliseconds: Int64(hour) * 3_600_000)
    }

    /// (from, to, now, reporting currency): months measured at their end, and at a `now` inside a month.
    static let mrrCases: [(Instant, Instant, Instant, String?)] = [
        (date(2024, 1, 1), date(2027, 1, 1), date(2030, 1, 1), nil),
        (date(2024, 1, 1), date(2026, 1, 1), date(2025, 9, 17, 13), "USD"),
        (date(2024, 5, 20), date(2025, 3, 1), date(2024, 11, 1), "EUR"),
        (date(2025, 2, 1), date(2025, 6, 1), date(2025, 1, 15), nil),
        (date(2024, 3, 1), date(2024, 4, 1), date(2024, 3, 31, 23), "USD"),
    ]

    /// (from, to, granularity, reporting currency).
    static let revenueCases: [(Instant, Instant, RevenueReport.Granularity, String?)] = [
        (date(2024, 1, 1), date(2026, 1, 1), .day, nil),
        (date(2024, 1, 1), date(2027, 1, 1), .week, "USD"),
        (date(2024, 2, 10, 7), date(2025, 8, 3, 19), .month, "EUR"),
        (date(2024, 9, 1), date(2025, 3, 1), .day, "USD"),
        // Partial days at both edges, at every granularity; one range inside a day, one across a single midnight.
        (date(2024, 3, 5, 13), date(2025, 1, 20, 6), .day, "USD"),
        (date(2024, 4, 30, 23), date(2025, 6, 2, 1), .week, nil),
        (date(2024, 12, 31, 5), date(2025, 11, 1, 17), .month, "EUR"),
        (date(2024, 10, 2, 3), date(2024, 10, 2, 21), .day, nil),
        (date(2024, 10, 2, 3), date(2024, 10, 3, 21), .day, "USD"),
    ]

    /// Every case, from the aggregates and from the ledger.
    static func compareReports(on connection: PostgresConnection, label: String) throws -> Outcome {
        let scope = ReportScope(bundleID: bundleID)
        var outcome = Outcome()
        for (from, to, now, currency) in mrrCases {
            let facts = try Reports.mrr(
                on: connection, scope: scope, from: from, to: to, now: now, reportingCurrency: currency, source: .facts)
            let ledger = try Reports.mrr(
                on: connection, scope: scope, from: from, to: to, now: now, reportingCurrency: currency, source: .ledger
            )
            outcome.compared += 1
            outcome.mrrRows += ledger.rows.count
            outcome.committedRows += ledger.rows.filter { $0.committedMrrMilli > 0 }.count
            if facts != ledger {
                let differing =
                    zip(facts.rows, ledger.rows).first { $0 != $1 }.map { "\n  facts  \($0.0)\n  ledger \($0.1)" } ?? ""
                outcome.disagreements.append(
                    "\(label) mrr \(from)..<\(to) at \(now) \(currency ?? "-"): \(facts.rows.count) vs \(ledger.rows.count) rows\(differing)"
                )
            }
        }
        for (from, to, granularity, currency) in revenueCases {
            let ledger = try Reports.revenue(
                on: connection, scope: scope, from: from, to: to, granularity: granularity, reportingCurrency: currency,
                source: .ledger)
            outcome.revenueRows += ledger.rows.count
            for source in [MoneySource.facts, .dayTotals] {
                let facts = try Reports.revenue(
                    on: connection, scope: scope, from: from, to: to, granularity: granularity,
                    reportingCurrency: currency,
                    source: source)
                outcome.compared += 1
                if facts != ledger {
                    let differing =
                        zip(facts.rows, ledger.rows).first { $0 != $1 }.map {
                            "\n  \(source)  \($0.0)\n  ledger \($0.1)"
                        } ?? ""
                    outcome.disagreements.append(
                        "\(label) revenue from \(source) \(from)..<\(to) \(granularity) \(currency ?? "-"): "
                            + "\(facts.rows.count) vs \(ledger.rows.count) rows\(differing)")
                }
            }
        }
        outcome.credits =
            try connection.query("SELECT count(*) FROM chain_money_facts WHERE credit_ms IS NOT NULL")
            .first.map { Int(try $0.decode(Int64.self, at: 0)) } ?? 0
        outcome.secondYear =
            try connection.query("SELECT count(*) FROM chain_money_facts WHERE second_year AND amount_milli > 0")
            .first.map { Int(try $0.decode(Int64.self, at: 0)) } ?? 0
        return outcome
    }

    /// Both aggregates' rows as text, in key order.
    static func aggregates(_ pool: PostgresPool) async throws -> [String] {
        try await pool.query(
            """
            SELECT f::text FROM (SELECT * FROM chain_money_facts ORDER BY app_id, environment, original_transaction_id, transaction_id) f
            UNION ALL
            SELECT m::text FROM (SELECT * FROM chain_mrr_moves ORDER BY app_id, environment, original_transaction_id, month, currency) m
            UNION ALL
            SELECT t::text FROM (
                SELECT * FROM revenue_day_totals WHERE sales <> 0
                ORDER BY app_id, day, environment, kind, bought_day, product_id, storefront, currency, amount_milli,
                    second_year, estimated, shard
            ) t
            """
        ).map { try $0.decode(String.self, at: 0) }
            // Sorted here: Citus keeps no subquery's order across the workers' rows.
            .sorted()
    }

    /// Where `revenue_day_totals` differs from `chain_money_facts` counted by the totals' key (a sale on its
    /// purchase day, the refund of a priced sale on its refund day, an upgrade credit on its day), shard by shard
    /// (`hashtext(original_transaction_id) & 15`): each differing key, with its count in the facts and in the totals.
    static func totalsDisagreements(_ pool: PostgresPool) async throws -> [String] {
        try await pool.query(totalsDisagreementsSQL).map { try $0.decode(String.self, at: 0) }
    }

    /// `totalsDisagreements` on one connection (inside a transaction).
    static func totalsDisagreements(on connection: PostgresConnection) throws -> [String] {
        try connection.query(totalsDisagreementsSQL).map { try $0.decode(String.self, at: 0) }
    }

    static let totalsDisagreementsSQL: PostgresQuery = """
        WITH facts AS (
            SELECT f.app_id, d.day, f.environment, d.kind, d.bought_day, f.product_id, f.storefront, f.currency,
                d.amount_milli, f.second_year, d.estimated, (hashtext(f.original_transaction_id) & 15)::smallint AS shard,
                count(*)::bigint AS sales
            FROM chain_money_facts f
            CROSS JOIN LATERAL (VALUES
                (0::smallint, f.purchase_ms, f.amount_milli, f.estimated, true),
                (1::smallint, f.refund_ms, f.refund_milli, f.estimated, f.refund_ms IS NOT NULL AND f.amount_milli > 0),
                (2::smallint, f.credit_ms, f.credit_milli, true, f.credit_ms IS NOT NULL)
            ) AS e(kind, at_ms, amount_milli, estimated, counts)
            CROSS JOIN LATERAL (
                SELECT e.kind, floor(e.at_ms / 86400000.0)::integer AS day,
                    floor(f.purchase_ms / 86400000.0)::integer AS bought_day, e.amount_milli, e.estimated
            ) d
            WHERE e.counts
            GROUP BY 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12
        ),
        totals AS (SELECT * FROM revenue_day_totals WHERE sales <> 0)
        SELECT coalesce(f::text, t::text) || ': ' || coalesce(f.sales, 0) || ' in the facts, '
            || coalesce(t.sales, 0) || ' in the totals'
        FROM facts f FULL JOIN totals t
          ON (f.app_id, f.day, f.environment, f.kind, f.bought_day, f.product_id, f.second_year, f.estimated, f.shard)
             = (t.app_id, t.day, t.environment, t.kind, t.bought_day, t.product_id, t.second_year, t.estimated, t.shard)
            AND f.storefront IS NOT DISTINCT FROM t.storefront AND f.currency IS NOT DISTINCT FROM t.currency
            AND f.amount_milli IS NOT DISTINCT FROM t.amount_milli
        WHERE f.sales IS DISTINCT FROM t.sales
        ORDER BY 1
        """
}
