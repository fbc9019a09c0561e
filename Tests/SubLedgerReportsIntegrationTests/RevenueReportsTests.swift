import CatalogFile
import Foundation
import PostgresLibPQ
import SubLedgerCore
import SubLedgerStore
import Testing

@testable import SubLedgerReports

/// The `mrr` and `revenue` reports against `RevenueFixtures`, whose every figure is computed by hand below.
@Suite struct RevenueReportsTests {
    typealias F = RevenueFixtures

    func withFixture(_ body: @escaping @Sendable (PostgresConnection) throws -> Void) async throws {
        try await ReportsDatabase.withMigratedSchema { pool in
            try await F.load(pool)
            try await pool.withConnection { connection in try body(connection) }
        }
    }

    /// MRR is measured at each month's last millisecond.
    ///
    /// USD (com.example.money): monthly 9.990 each; y1's 99.990 a year is (99.990 + 0.006) / 12 = 8.333 a month.
    /// - January: m1 9.990 + m2 9.990 + y1 8.333 + t1 9.990 (converted on day 7) = 38.303, all new; m3 was refunded
    ///   on day 25 and t1's trial costs 0, so neither counts.
    /// - February: m2 upgraded to premium 14.990 (expansion 5.000): 43.303.
    /// - March: t1 stopped on day 67 (churned 9.990): 33.313.
    /// - April: unchanged, 33.313 from 3 subscribers.
    /// GBP (com.example.small): s1 4.990 new in January, churned in February (day 33), no row in March, and a
    /// reactivation in April (day 100): 4.990.
    @Test func mrrMovesByNewExpansionChurnAndReactivation() async throws {
        try await withFixture { connection in
            let report = try Reports.mrr(
                on: connection, scope: .everything, from: F.day(0), to: F.day(120), now: F.day(200),
                reportingCurrency: "USD")
            let usd = report.rows.filter { $0.currency == "USD" }
            #expect(usd.map(\.month) == ["2025-01", "2025-02", "2025-03", "2025-04"])
            #expect(usd.map(\.mrrMilli) == [38_303, 43_303, 33_313, 33_313])
            #expect(usd.map(\.arrMilli) == [459_636, 519_636, 399_756, 399_756])
            #expect(usd.map(\.subscribers) == [4, 4, 3, 3])
            #expect(
                usd.map(\.movementMilli) == [
                    MRRMovement(new: 38_303), MRRMovement(expansion: 5_000), MRRMovement(churned: 9_990), MRRMovement(),
                ])
            #expect(usd.allSatisfy { $0.estimated })
            let gbp = report.rows.filter { $0.currency == "GBP" }
            #expect(gbp.map(\.month) == ["2025-01", "2025-02", "2025-04"])
            #expect(gbp.map(\.mrrMilli) == [4_990, 0, 4_990])
            #expect(
                gbp.map(\.movementMilli) == [
                    MRRMovement(new: 4_990), MRRMovement(churned: 4_990), MRRMovement(reactivation: 4_990),
                ])
            #expect(gbp.allSatisfy { !$0.estimated })
            // In USD at 1.25 per GBP: 4.990 GBP is 6.2375 → 6.238 USD.
            #expect(report.reporting?.map(\.mrrMilli) == [38_303 + 6_238, 43_303, 33_313, 33_313 + 6_238])
            #expect(report.reporting?.allSatisfy { $0.complete } == true)
            #expect(report.missingRates.isEmpty)
        }
    }

    /// Revenue per month, by hand (commission 30 % for money, 15 % for the small business app; tax 20 % in GBR):
    /// - USD January: sales t1 trial 0, m1 9.990, t1 9.990, m2 9.990, m3 9.990, y1 99.990 (estimated) = 139.950;
    ///   refund m3 9.990; net 129.960; commission 4 × 2.997 + 29.997 − 2.997 = 38.988; proceeds 90.972.
    /// - USD February: m1, t1, m2 9.990 each and premium 14.990 = 44.960; m2's upgrade credit 9.990 × 20/30 = 6.660
    ///   (estimated); net 38.300; commission 3 × 2.997 + 4.497 − 1.998 = 11.490; proceeds 26.810.
    /// - USD March and April: m1 9.990 + m2 14.990 = 24.980; commission 7.494; proceeds 17.486.
    /// - GBP January and April: s1 4.990, tax 0.998, commission 15 % of 3.992 = 0.599, proceeds 3.393.
    @Test func revenueSplitsGrossRefundsTaxCommissionAndProceeds() async throws {
        try await withFixture { connection in
            let report = try Reports.revenue(
                on: connection, scope: .everything, from: F.day(0), to: F.day(120), granularity: .month,
                reportingCurrency: "USD")
            let usd = report.periods.filter { $0.currency == "USD" }
            #expect(usd.map(\.period) == ["2025-01-01", "2025-02-01", "2025-03-01", "2025-04-01"])
            #expect(usd.map(\.amounts.grossMilli) == [139_950, 44_960, 24_980, 24_980])
            #expect(usd.map(\.amounts.refundsMilli) == [9_990, 6_660, 0, 0])
            #expect(usd.map(\.amounts.netMilli) == [129_960, 38_300, 24_980, 24_980])
            #expect(usd.map(\.amounts.commissionMilli) == [38_988, 11_490, 7_494, 7_494])
            #expect(usd.map(\.amounts.proceedsMilli) == [90_972, 26_810, 17_486, 17_486])
            #expect(usd.map(\.amounts.estimatedMilli) == [99_990, 6_660, 0, 0])
            #expect(usd[0].amounts.sales == 6)
            let gbp = report.totals.first { $0.currency == "GBP" }?.amounts
            #expect(gbp?.grossMilli == 9_980)
            #expect(gbp?.taxMilli == 1_996)
            #expect(gbp?.commissionMilli == 1_198)
            #expect(gbp?.proceedsMilli == 6_786)
            let total = report.totals.first { $0.currency == "USD" }?.amounts
            #expect(total?.grossMilli == 234_870)
            #expect(total?.refundsMilli == 16_650)
            #expect(total?.proceedsMilli == 152_754)
            // Converted: each GBP sale is 6.238 USD, tax 1.248, commission 0.749, proceeds 4.241.
            let convertedGross: Int64 = 234_870 + 2 * 6_238
            let convertedProceeds: Int64 = 152_754 + 2 * 4_241
            #expect(report.reportingTotal?.grossMilli == convertedGross)
            #expect(report.reportingTotal?.proceedsMilli == convertedProceeds)
            #expect(report.unpricedSales == 0)
            // By product and storefront: January's pro.monthly sales in USA, and y1 with no storefront.
            let january = report.rows.filter { $0.period == "2025-01-01" && $0.currency == "USD" }
            #expect(january.map(\.productID) == ["pro.monthly", "pro.yearly"])
            #expect(january.map(\.storefront) == ["USA", ""])
            #expect(january[0].amounts.sales == 5 && january[0].amounts.refunds == 1)
        }
    }

    /// y1's renewal on day 380 follows 365 paid days in the group: 15 %, 99.990 − 14.999 = 84.991.
    @Test func renewalsAfterAYearOfPaidServicePayFifteenPercent() async throws {
        try await withFixture { connection in
            let report = try Reports.revenue(
                on: connection, scope: ReportScope(bundleID: F.money), from: F.day(375), to: F.day(385),
                granularity: .day)
            #expect(report.rows.count == 1)
            #expect(report.rows.first?.period == "2026-01-16")
            #expect(report.rows.first?.amounts.commissionMilli == 14_999)
            #expect(report.rows.first?.amounts.proceedsMilli == 84_991)
            #expect(report.rows.first?.amounts.estimatedMilli == 99_990)
        }
    }

    @Test func aReportingCurrencyWithoutRatesListsTheMissingOnesAndGuessesNothing() async throws {
        try await withFixture { connection in
            let report = try Reports.revenue(
                on: connection, scope: .everything, from: F.day(0), to: F.day(31), granularity: .week,
                reportingCurrency: "EUR")
            #expect(report.missingRates.map(\.currency) == ["GBP", "USD"])
            #expect(report.reportingTotal?.grossMilli == 0)
            #expect(report.periods.first?.period == "2024-12-30")
            let mrr = try Reports.mrr(
                on: connection, scope: .everything, from: F.day(0), to: F.day(31), now: F.day(200),
                reportingCurrency: "EUR")
            #expect(mrr.reporting?.first?.complete == false)
            #expect(mrr.missingRates.map(\.currency) == ["GBP", "USD"])
        }
    }

    @Test func ingestionStoresApplesPriceFieldsPerTransaction() async throws {
        try await withFixture { connection in
            let rows = try connection.query(
                """
                SELECT transaction_id, price_milliunits, currency, storefront, offer_type, offer_discount_type, is_trial_period
                FROM transactions WHERE transaction_id IN ('t1-0', 'm1-1', 'y1-1') ORDER BY transaction_id
                """)
            #expect(rows.count == 3)
            let values = try rows.map { row in
                [
                    try row.decode(String.self, at: 0), try row.decode(Int64?.self, at: 1).map(String.init) ?? "-",
                    try row.decode(String?.self, at: 2) ?? "-", try row.decode(String?.self, at: 3) ?? "-",
                    try row.decode(Int?.self, at: 4).map(String.init) ?? "-",
                    try row.decode(String?.self, at: 5) ?? "-",
                    String(try row.decode(Bool.self, at: 6)),
                ]
            }
            #expect(
                values == [
                    ["m1-1", "9990", "USD", "USA", "-", "-", "false"],
                    ["t1-0", "0", "USD", "USA", "1", "FREE_TRIAL", "true"],
                    ["y1-1", "-", "-", "-", "-", "-", "false"],
                ])
            let estimated = try connection.query(
                "SELECT amount_milliunits, currency, estimated FROM transaction_amounts WHERE transaction_id = 'y1-1'"
            ).first
            #expect(try estimated?.decode(Int64.self, at: 0) == 99_990)
            #expect(try estimated?.decode(String.self, at: 1) == "USD")
            #expect(try estimated?.decode(Bool.self, at: 2) == true)
        }
    }

    @Test func theCLIsRequestAndTheRevenuePageShowTheSameNumbers() async throws {
        try await withFixture { connection in
            let now = F.day(119)
            let panel = try RevenuePanel.load(on: connection, now: now)
            let (from, to) = RevenuePanel.range(now: now)
            let request = try ReportRequest(
                name: "mrr",
                options: [
                    "from": RFC3339.format(from, precision: .seconds), "to": RFC3339.format(to, precision: .seconds),
                ],
                now: now)
            guard case .mrr(let cli) = try Reports.run(request, on: connection) else {
                Issue.record("not an MRR report")
                return
            }
            #expect(cli == panel.mrr)
            let revenueRequest = try ReportRequest(
                name: "revenue",
                options: [
                    "from": RFC3339.format(from, precision: .seconds), "to": RFC3339.format(to, precision: .seconds),
                    "by": "month",
                ],
                now: now)
            guard case .revenue(let cliRevenue) = try Reports.run(revenueRequest, on: connection) else {
                Issue.record("not a revenue report")
                return
            }
            #expect(cliRevenue == panel.revenue)
            let html = AdminRevenuePage.render(query: RevenuePageQuery(now: now), revenue: panel, now: now)
            #expect(html.contains("MRR (USD)"))
            #expect(html.contains("<strong>33.313</strong><span>MRR 2025-04</span>"))
            #expect(html.contains("2025-02 expansion: 5.000"))
            #expect(html.contains("2025-03 churned: 9.990"))
            #expect(html.contains("2025-01 new: 38.303"))
            #expect(html.contains("Also in GBP"))
            #expect(html.contains("gross 234.870"))
            let usd = try #require(panel.revenue.totals.first { $0.currency == "USD" }).amounts
            #expect(
                html.contains(
                    "after tax \(DecimalText.milliunits(usd.taxMilli)), the stores' commissions "
                        + "\(DecimalText.milliunits(usd.commissionMilli)) and payment processing fees 0.000"),
                "\(html)")
            #expect(html.contains("<a href=\"/admin\">"))

            var gbp = panel
            gbp.chartedCurrency = "GBP"
            #expect(
                AdminRevenuePage.render(query: RevenuePageQuery(now: now), revenue: gbp, now: now).contains("MRR (GBP)")
            )
            var eur = panel
            eur.chartedCurrency = "EUR"
            #expect(
                AdminRevenuePage.render(query: RevenuePageQuery(now: now), revenue: eur, now: now)
                    .contains("No priced transactions in EUR in this range."))
        }
    }

    @Test func revenueSettingsRefuseBadInputWithAClearError() async throws {
        try await ReportsDatabase.withMigratedSchema { pool in
            try await F.load(pool)
            let catalogStore = CatalogStore(pool: pool)
            let settings = RevenueSettingsStore(pool: pool)
            let overlap = await #expect(throws: StoreError.self) {
                try await settings.setSmallBusinessPeriod(
                    SmallBusinessPeriod(fromDay: CalendarDay.parse("2025-06-01")!), bundleID: F.small)
            }
            #expect(overlap?.code == .invalidRevenueSetting)
            let unknown = await #expect(throws: StoreError.self) {
                try await settings.setSmallBusinessPeriod(
                    SmallBusinessPeriod(fromDay: 0), bundleID: "com.example.nobody")
            }
            #expect(unknown?.code == .unknownApp)
            let backwards = await #expect(throws: StoreError.self) {
                try await settings.setSmallBusinessPeriod(
                    SmallBusinessPeriod(fromDay: 10, untilDay: 10), bundleID: F.money)
            }
            #expect(backwards?.code == .invalidRevenueSetting)
            let currency = await #expect(throws: StoreError.self) {
                try await settings.applyExchangeRates([], reportingCurrency: "usd")
            }
            #expect(currency?.code == .invalidRevenueSetting)
            #expect(
                try await settings.removeSmallBusinessPeriod(
                    fromDay: CalendarDay.parse("2025-01-01")!, bundleID: F.small))
            #expect(try await settings.smallBusinessPeriods(bundleID: F.small).isEmpty)

            let duplicate = F.catalogYAML.replacingOccurrences(
                of: "storefront: FRA }",
                with: "storefront: FRA }\n          - { currency: EUR, price: \"1\", storefront: FRA }")
            let (catalog, _) = try CatalogFile.read(duplicate)
            let refused = await #expect(throws: StoreError.self) { try await catalogStore.applyCatalog(catalog) }
            #expect(refused?.code == .invalidCatalog)
            #expect(refused?.message.contains("two price points") == true)
            for bad in ["price: \"99.99\"", "currency: USD"] {
                let text = F.catalogYAML.replacingOccurrences(
                    of: bad, with: bad.hasPrefix("price") ? "price: \"-1\"" : "currency: usd")
                let error = #expect(throws: CatalogFileError.self) { try CatalogFile.read(text) }
                #expect(error?.description.hasPrefix("invalid_catalog: ") == true)
            }
        }
    }

    @Test func mrrAndRevenueRenderAsJSONCSVAndTable() async throws {
        try await withFixture { connection in
            let mrr = AnyReport.mrr(
                try Reports.mrr(
                    on: connection, scope: .everything, from: F.day(0), to: F.day(59), now: F.day(200)))
            let csv = ReportFormat.csv.render(mrr)
            #expect(
                csv.hasPrefix(
                    "month,currency,mrr,arr,subscribers,committed_mrr,committed_subscribers,new,expansion,contraction,"
                        + "churned,reactivation,net,estimated"))
            #expect(csv.contains("2025-02,USD,43.303,519.636,4,0.000,0,0.000,5.000,0.000,0.000,0.000,5.000,yes"))
            let json = ReportFormat.json.render(mrr)
            #expect(json.contains("\"mrr_milli\" : 43303") || json.contains("\"mrr_milli\":43303"))
            let revenue = AnyReport.revenue(
                try Reports.revenue(
                    on: connection, scope: ReportScope(bundleID: F.small), from: F.day(0), to: F.day(31),
                    granularity: .month))
            let table = ReportFormat.table.render(revenue)
            #expect(table.contains("Revenue per month"))
            #expect(table.contains("small.monthly"))
            #expect(table.contains("3.393"))
        }
    }
}
