import Foundation
import PostgresLibPQ
import Testing

@testable import SubLedgerReports

/// The `trials` and `retention` reports against `CohortFixtures`, whose answers are worked out here by hand.
@Suite struct CohortReportsTests {
    typealias F = CohortFixtures
    let scope = ReportScope(bundleID: F.bundleID)

    func withStory(_ body: (PostgresPool) async throws -> Void) async throws {
        try await ReportsDatabase.withMigratedSchema { pool in
            try await F.load(pool)
            try await body(pool)
        }
    }

    func retention(_ pool: PostgresPool, currency: String? = nil) async throws -> RetentionReport {
        try await pool.withConnection { connection in
            try Reports.retention(
                on: connection, scope: scope, from: F.date(1, 1), to: F.date(3, 1), months: 6,
                reportingCurrency: currency,
                now: F.now)
        }
    }

    // Cohort January 2025 (first payments A Jan 5, B Jan 17 after its trial, C Jan 20 refunded): 3 subscribers.
    //   Month k of a chain is [first payment + k months, + k + 1 months); a chain pays in month k when a payment that
    //   was not refunded covers part of it.
    //   m0: A [Jan 5, Feb 5) yes, B [Jan 17, Feb 17) yes, C refunded no  → 2/3 = 66.7 %
    //   m1: A [Feb 5, Mar 5) yes, B [Feb 17, Mar 17) yes                  → 2/3 = 66.7 %
    //   m2: A [Mar 5, Apr 5) yes, B's last period ended Mar 17, its m2 begins Mar 17: no → 1/3 = 33.3 %
    //   m3: A [Apr 5, May 5) yes                                          → 1/3 = 33.3 %
    //   m4, m5: nobody                                                    → 0 %
    //   A month k is complete when the cohort's month start + k + 1 months <= Jul 1: k <= 5, all six.
    //   Money (USD): A 4 × 9.99 in m0..m3; B 9.99 in m0 and m1; C 9.99 in m0, refunded.
    //   gross 69.93, refunded 9.99, net 59.94; LTV 59.94 / 3 = 19.98.
    //   net by month 19.98, 19.98, 9.99, 9.99, 0, 0 → revenue retention 100, 100, 50, 50, 0, 0 %.
    // Cohort February 2025 (D Feb 3 yearly, E Feb 10; F never paid, so is in no cohort): 2 subscribers.
    //   m0: D yes, E yes → 100 %; m1: D, E [Mar 10, Apr 10) (premium Feb 25–Mar 25, Mar 25–Apr 25) → 100 %;
    //   m2: D, E [Apr 10, May 10) (Mar 25–Apr 25) → 100 %; m3: D only → 50 %; m4: D → 50 %;
    //   m5: Feb 1 + 6 months = Aug 1 > Jul 1: not complete → nil.
    //   USD (E): Feb 10 9.99 and Feb 25 14.99 in m0 (the upgrade's revocation is no refund), Mar 25 14.99 in m1:
    //   net 39.97, LTV 39.97 / 2 = 19.985; revenue retention m1 = 14.99 / 24.98 = 60.0 %.
    //   EUR (D): 54.99 in m0; LTV 27.495.
    //   In USD at 1.1 USD per EUR: D = 60.489; net 100.459, LTV 50.229 (rounded down); m0 85.469, m1 14.99.
    // H's first payment (its paid intro offer, Mar 1) is outside [Jan 1, Mar 1): no March cohort.

    @Test func retentionGivesTheHandComputedPercentagesPerCohort() async throws {
        try await withStory { pool in
            let report = try await retention(pool)
            #expect(report.cohorts.map(\.start) == [F.date(1, 1), F.date(2, 1)])
            let january = report.cohorts[0]
            let february = report.cohorts[1]
            #expect(january.subscribers == 3)
            #expect(january.paying == [2, 2, 1, 1, 0, 0])
            #expect(february.subscribers == 2)
            #expect(february.paying == [2, 2, 2, 1, 1, nil])
            #expect(
                report.table.rows.first == [
                    "2025-01", "paying_percent", "3", "", "66.7", "66.7", "33.3", "33.3", "0.0", "0.0",
                ])
            #expect(
                report.table.rows.contains([
                    "2025-02", "paying_percent", "2", "", "100.0", "100.0", "100.0", "50.0", "50.0", "",
                ]))
        }
    }

    @Test func retentionGivesRevenueRetentionAndRealizedLTVNetOfRefundsPerCurrency() async throws {
        try await withStory { pool in
            let report = try await retention(pool)
            #expect(report.reportingCurrency == nil)
            let january = report.cohorts[0]
            let february = report.cohorts[1]
            #expect(january.money.map(\.currency) == ["USD"])
            let januaryUSD = try #require(january.money.first)
            #expect(januaryUSD.grossMilli == 69_930)
            #expect(januaryUSD.refundedMilli == 9_990)
            #expect(januaryUSD.netMilli == 59_940)
            #expect(januaryUSD.ltvMilli == 19_980)
            #expect(januaryUSD.netByMonth == [19_980, 19_980, 9_990, 9_990, 0, 0])
            #expect(januaryUSD.revenueRetention == [100, 100, 50, 50, 0, 0])
            #expect(february.money.map(\.currency) == ["EUR", "USD"])
            #expect(february.money[0].netMilli == 54_990)
            #expect(february.money[0].ltvMilli == 27_495)
            #expect(february.money[1].netMilli == 39_970)
            #expect(february.money[1].ltvMilli == 19_985)
            #expect(february.money[1].netByMonth == [24_980, 14_990, 0, 0, 0, nil])
            #expect(ReportFormat.percent(february.money[1].revenueRetention[1]) == "60.0")
            #expect(
                report.table.rows.contains([
                    "2025-01", "revenue_percent USD", "3", "19.98", "100.0", "100.0", "50.0", "50.0", "0.0", "0.0",
                ]))
        }
    }

    @Test func retentionConvertsToTheReportingCurrencyAtTheNearestEarlierRate() async throws {
        try await withStory { pool in
            try await pool.query(
                """
                INSERT INTO exchange_rates (reporting_currency, currency, rate_date, rate) VALUES
                    ('USD', 'EUR', '2024-12-31', 1.1), ('USD', 'EUR', '2025-02-04', 2.0)
                """)
            // Only one reporting currency is loaded: it is used without being asked for.
            let report = try await retention(pool)
            #expect(report.reportingCurrency == "USD")
            let february = try #require(report.cohorts.last?.reporting)
            #expect(february.netMilli == 100_459)
            #expect(february.ltvMilli == 50_229)
            #expect(february.netByMonth == [85_469, 14_990, 0, 0, 0, nil])
            #expect(report.cohorts.allSatisfy { $0.missingRates.isEmpty })
            #expect(report.cohorts.first?.reporting?.netMilli == 59_940)
        }
    }

    @Test func aMissingExchangeRateIsReportedNotGuessed() async throws {
        try await withStory { pool in
            try await pool.query(
                "INSERT INTO exchange_rates (reporting_currency, currency, rate_date, rate) VALUES ('USD', 'EUR', '2025-03-01', 1.1)"
            )
            // D paid on Feb 3, before the first EUR rate: left out, and said so.
            let report = try await retention(pool, currency: "USD")
            let february = try #require(report.cohorts.last)
            #expect(february.missingRates == ["EUR"])
            #expect(february.reporting?.netMilli == 39_970)
            #expect(report.table.notes.contains { $0.contains("no exchange rate for EUR") })
        }
    }

    // Trials from Jan 1 to Jul 1 by month, at Jul 1:
    //   Jan: B's trial (Jan 10), paid Jan 17 and not refunded → 1 start, 1 converted.
    //   Feb: F's trial, never paid, ended Feb 8 → 1 start, 0 converted, 0 pending.
    //   Mar: H's paid intro (Mar 1), full price Apr 1 → 1 intro start, 1 converted.
    //   Jun: G's trial until Jul 5 → 1 start, 0 converted, 1 pending.
    //   Trials in total: 3 starts, 1 converted (33.3 %), 1 pending; intro offers: 1 start, 1 converted (100 %).
    @Test func trialsCountStartsAndConversionsPerCohortAndOffer() async throws {
        try await withStory { pool in
            let report = try await pool.withConnection { connection in
                try Reports.trials(
                    on: connection, scope: scope, from: F.date(1, 1), to: F.now, granularity: .month, now: F.now)
            }
            #expect(report.cohorts.map(\.start) == (1...6).map { F.date($0, 1) })
            #expect(report.cohorts.map(\.trial.starts) == [1, 1, 0, 0, 0, 1])
            #expect(report.cohorts.map(\.trial.converted) == [1, 0, 0, 0, 0, 0])
            #expect(report.cohorts.map(\.trial.pending) == [0, 0, 0, 0, 0, 1])
            #expect(report.cohorts.map(\.intro.starts) == [0, 0, 1, 0, 0, 0])
            #expect(report.cohorts.map(\.intro.converted) == [0, 0, 1, 0, 0, 0])
            #expect(report.totalTrial.starts == 3 && report.totalTrial.converted == 1 && report.totalTrial.pending == 1)
            #expect(ReportFormat.percent(report.totalTrial.conversionPercent) == "33.3")
            #expect(report.totalIntro.conversionPercent == 100)
            #expect(report.rows.map(\.productID) == ["pro.monthly", "pro.monthly", "pro.monthly", "pro.monthly"])
            #expect(report.table.rows.first == ["2025-01", "trial", F.bundleID, "pro.monthly", "1", "1", "0", "100.0"])
            #expect(report.table.rows.contains(["total", "trial", "", "", "3", "1", "1", "33.3"]))
        }
    }

    @Test func weeklyTrialCohortsStartOnMonday() async throws {
        try await withStory { pool in
            let report = try await pool.withConnection { connection in
                try Reports.trials(
                    on: connection, scope: scope, from: F.date(1, 1), to: F.date(2, 1), granularity: .week, now: F.now)
            }
            // 2025-01-01 is a Wednesday: the first cohort is the week of Monday 2024-12-30; B's trial (Friday Jan 10)
            // is in the week of Monday Jan 6.
            #expect(report.cohorts.first?.start == F.date(12, 30, year: 2024))
            #expect(report.rows.map(\.cohort) == [F.date(1, 6)])
        }
    }

    @Test func requestsNameTheCohortReportsAndRefuseBadArguments() throws {
        let now = F.now
        let trials = try ReportRequest(name: "trials", options: ["cohort": "week"], now: now)
        guard case .trials(let from, let to, let granularity, _) = trials.kind else {
            Issue.record("not trials")
            return
        }
        #expect(granularity == .week && to == now && from < now)
        let retention = try ReportRequest(name: "retention", options: [:], now: now)
        guard case .retention(let rfrom, _, let months, let currency, _) = retention.kind else {
            Issue.record("not retention")
            return
        }
        #expect(rfrom == F.date(8, 1, year: 2023))
        #expect(months == 24 && currency == nil)
        let bad: [(String, [String: String])] = [
            ("trials", ["cohort": "day"]), ("trials", ["months": "3"]), ("retention", ["months": "0"]),
            ("retention", ["months": "61"]), ("retention", ["currency": "usd"]), ("retention", ["cohort": "week"]),
            ("retention", ["from": "2025-02-01", "to": "2025-01-01"]), ("trials", ["from": "yesterday"]),
        ]
        for (name, options) in bad {
            #expect(throws: ReportError.self) { try ReportRequest(name: name, options: options, now: now) }
        }
        #expect(ReportRequest.names.contains("trials") && ReportRequest.names.contains("retention"))
    }

    @Test func theAdminPageShowsTheSameFiguresAsTheCommand() async throws {
        try await withStory { pool in
            let (panel, cli) = try await pool.withConnection { connection in
                let panel = try CohortsPanel.load(on: connection, now: F.now)
                // What `subledger report retention` and `subledger report trials` print, with their defaults.
                let retention = try Reports.run(
                    ReportRequest(name: "retention", options: [:], now: F.now), on: connection)
                let trials = try Reports.run(ReportRequest(name: "trials", options: [:], now: F.now), on: connection)
                return (panel, (retention.table, trials))
            }
            // The section `/admin/revenue` shows (`AdminRevenuePage.render(query:revenue:cohorts:now:)`).
            let html = AdminPage.cohortsSection(panel)
            // Every heatmap cell: cohort, month and the text it shows.
            let cell =
                /<g class="cell" data-cohort="([0-9-]+)" data-month="([0-9]+)">.*?<text[^>]*>([^<]*)<\/text><\/g>/
            var shown: [String: String] = [:]
            for match in html.matches(of: cell) { shown["\(match.1) m\(match.2)"] = String(match.3) }
            var expected: [String: String] = [:]
            for row in cli.0.rows where row[1] == "paying_percent" {
                for (month, text) in row.dropFirst(4).enumerated() where !text.isEmpty {
                    expected["\(row[0]) m\(month)"] = text
                }
            }
            #expect(!expected.isEmpty)
            #expect(shown == expected)
            #expect(expected["2025-01 m2"] == "33.3")
            // Trial conversion: the table under the chart holds the CLI's per-cohort figures.
            guard case .trials(let trials) = cli.1 else {
                Issue.record("not trials")
                return
            }
            for cohort in trials.cohorts where cohort.trial.starts > 0 {
                let label = String(ReportFormat.day(cohort.start).prefix(7))
                let cells = [
                    label, String(cohort.trial.starts), String(cohort.trial.converted), String(cohort.trial.pending),
                    ReportFormat.percent(cohort.trial.conversionPercent),
                ]
                #expect(html.contains(cells.map { "<td>\($0)</td>" }.joined()))
            }
            #expect(html.contains("<td>2025-01</td><td>1</td><td>1</td><td>0</td><td>100.0</td>"))
        }
    }
}
