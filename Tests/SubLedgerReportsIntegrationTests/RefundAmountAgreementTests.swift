import CatalogFile
import Foundation
import PostgresLibPQ
import SubLedgerCore
import SubLedgerStore
import Testing

@testable import SubLedgerReports

/// Every report that states money given back agrees on each refund's amount (`RefundAmount`: the share the store
/// stated, nothing once reversed), on a ledger built through `LedgerStore.apply`. Day 0 is 2025-01-01; every
/// amount is USD:
/// - a1 (ann): pro.monthly 9.99 from Apple, refunded in full on day 5 (no percentage): 9.990;
/// - a2 (ben): pro.monthly 9.99, refunded 50 % on day 10 (`revocationPercentage` 50 000): 4.995;
/// - a3 (cat): pro.monthly 9.99, refunded 50 % on day 12 and reversed on day 14 (Apple's transaction carries no
///   revocation any more): 0;
/// - a4 (dan): pro.monthly 9.99, refunded 50 % on day 11, reversed on day 13, refunded in full on day 18: 0 on
///   day 11, 9.990 on day 18;
/// - g1 (eve): Google's play.pro subscription at 4.99, its order voided on day 15: 4.990;
/// - g2 (fay): Google's play.gems, 2 bought (the catalog's 2.99: estimated), 1 of the 2 voided on day 16 (a
///   quantity-based partial refund, stated as 50 000): 1.495.
/// The refunds report gives back 31.460 in all, as the revenue report's refunds (from the per-day totals, from the
/// money facts and from the ledger's transactions), day by day, and the admin page's revenue panel.
@Suite struct RefundAmountAgreementTests {
    static let bundleID = "com.example.refunds"
    static let packageName = "com.example.refunds.android"

    static let catalogYAML = """
        apps:
          - bundle_id: com.example.refunds
            apple_app_id: 1999999999
            environments: [production]
            google_play:
              package_name: com.example.refunds.android
            products:
              - { product_id: pro.monthly, type: auto_renewable, subscription_group_id: "g1", entitlements: [pro] }
              - { product_id: play.pro, type: auto_renewable, subscription_group_id: "play", entitlements: [pro], store: google_play }
              - product_id: play.gems
                type: consumable
                credits: 10
                store: google_play
                prices:
                  - { currency: USD, price: "2.99", effective_from: "2024-01-01" }
        """

    /// 2025-01-01T00:00:00Z.
    static let start: Int64 = 1_735_689_600_000
    static func day(_ day: Int) -> Instant { Instant(millisecondsSince1970: start + Int64(day) * 86_400_000) }

    /// An Apple StoreKit 2 monthly subscription bought on `from`, as first seen.
    static func apple(_ id: String, from: Int) -> Transaction {
        Transaction(
            transactionID: id, chainID: id, productID: "pro.monthly", bundleID: bundleID,
            purchaseDate: day(from), originalPurchaseDate: day(from), expiresDate: day(from + 30),
            webOrderLineItemID: "w" + id, subscriptionGroupID: "g1", environment: .production,
            source: .signedTransaction, price: 9_990, currency: "USD", storefront: "USA")
    }

    /// `transaction` refunded on `refundDay` (a share of `percentage`, or the whole price).
    static func refunded(_ transaction: Transaction, on refundDay: Int, percentage: Int? = nil) -> Transaction {
        var refunded = transaction
        refunded.revocationDate = day(refundDay)
        refunded.revocationReason = 0
        refunded.revocationPercentage = percentage
        return refunded
    }

    /// A Google Play order as ingestion stores it (`GooglePlayPurchase+Core`).
    static func google(
        _ order: String, product: String, from: Int, to: Int? = nil, quantity: Int = 1, price: Int64? = nil
    ) -> Transaction {
        Transaction(
            transactionID: order, chainID: order, productID: product, bundleID: packageName,
            quantity: quantity, purchaseDate: day(from), originalPurchaseDate: day(from), expiresDate: to.map(day),
            environment: .production, source: .googlePlayAPI, price: price, currency: price == nil ? nil : "USD",
            storefront: "US", purchaseToken: "token-" + order)
    }

    /// Every input of the story: (day observed, submitter, transactions, input kind).
    static var inputs: [(day: Int, account: String?, transactions: [Transaction], kind: LedgerInput.Kind)] {
        let a1 = apple("a1", from: 1)
        let a2 = apple("a2", from: 2)
        let a3 = apple("a3", from: 3)
        let a4 = apple("a4", from: 4)
        let g1 = google("GPA.3300-0000-0000-00001", product: "play.pro", from: 4, to: 34, price: 4_990)
        let g2 = google("GPA.3300-0000-0000-00002", product: "play.gems", from: 6, quantity: 2)
        return [
            (1, "ann", [a1], .signedTransaction), (2, "ben", [a2], .signedTransaction),
            (3, "cat", [a3], .signedTransaction), (4, "dan", [a4], .signedTransaction),
            (4, "eve", [g1], .googlePurchase), (6, "fay", [g2], .googlePurchase),
            (5, nil, [refunded(a1, on: 5)], .notification),
            (10, nil, [refunded(a2, on: 10, percentage: 50_000)], .notification),
            (11, nil, [refunded(a4, on: 11, percentage: 50_000)], .notification),
            (12, nil, [refunded(a3, on: 12, percentage: 50_000)], .notification),
            // REFUND_REVERSED: the transaction as Apple states it again, without a revocation.
            (13, nil, [a4], .notification),
            (14, nil, [a3], .notification),
            // Google's voided purchases, as `GooglePlayIngestion.revoked` makes them (1 of 2: 1 × 100 000 / 2).
            (15, nil, [refunded(g1, on: 15)], .poll),
            (16, nil, [refunded(g2, on: 16, percentage: 50_000)], .poll),
            (19, nil, [refunded(a4, on: 18)], .notification),
        ]
    }

    func withLedger(_ body: @escaping @Sendable (PostgresConnection) throws -> Void) async throws {
        try await ReportsDatabase.withMigratedSchema { pool in
            let store = LedgerStore(pool: pool)
            let catalogStore = CatalogStore(pool: pool)
            let (catalog, secrets) = try CatalogFile.read(Self.catalogYAML)
            try await catalogStore.applyCatalog(catalog, secrets: secrets)
            guard let app = try await catalogStore.app(bundleID: Self.bundleID) else {
                throw ReportError.unknownApp(Self.bundleID)
            }
            for input in Self.inputs {
                let at = Self.day(input.day)
                try await store.apply(
                    LedgerInput(
                        kind: input.kind, bundleID: Self.bundleID, environment: .production,
                        submitter: try input.account.map { try AccountID($0) }, transactions: input.transactions,
                        renewalInfo: [], observedAt: at),
                    app: app, now: at)
            }
            try await ReportsDatabase.project(pool)
            try await pool.withConnection { connection in try body(connection) }
        }
    }

    @Test func theRefundsReportGivesBackWhatTheRevenueReportsRefundsSayDayByDay() async throws {
        try await withLedger { connection in
            let from = Self.day(0)
            let to = Self.day(31)
            let refunds = try Reports.refunds(on: connection, scope: .everything, from: from, to: to, limit: 100)

            // Each refund at the share stated; the reversed ones listed at 0.
            let rows = refunds.rows.map {
                "\($0.originalTransactionID) \(CalendarDay.text(CalendarDay.of($0.at))) "
                    + "\($0.refundedMilli.map(String.init) ?? "nil")\($0.reversed ? " reversed" : "")"
            }
            #expect(
                rows == [
                    "a4 2025-01-19 9990", "GPA.3300-0000-0000-00002 2025-01-17 1495",
                    "GPA.3300-0000-0000-00001 2025-01-16 4990", "a3 2025-01-13 0 reversed", "a4 2025-01-12 0 reversed",
                    "a2 2025-01-11 4995", "a1 2025-01-06 9990",
                ])
            let partial = try #require(refunds.rows.first { $0.originalTransactionID == "a2" })
            #expect(partial.priceMilli == 9_990)
            #expect(partial.revocationPercentage == 50_000)
            let google = try #require(refunds.rows.first { $0.originalTransactionID == "GPA.3300-0000-0000-00002" })
            #expect(google.kind == "debit")
            #expect(google.priceMilli == 2_990)
            #expect(google.estimated)
            #expect(refunds.totals.refunds == 6)
            #expect(refunds.totals.debits == 1)
            #expect(refunds.totals.reversed == 2)
            #expect(refunds.totals.withoutAmount == 0)
            #expect(
                refunds.totals.amounts == [
                    .init(currency: "USD", refunds: 5, amountMilli: 31_460, estimatedMilli: 1_495)
                ])

            // The revenue report's refunds, however it is computed, are the same amounts on the same days.
            var refundedByDay: [String: Int64] = [:]
            for row in refunds.rows {
                refundedByDay[CalendarDay.text(CalendarDay.of(row.at)), default: 0] += row.refundedMilli ?? 0
            }
            for source in [MoneySource.dayTotals, .facts, .ledger] {
                let revenue = try Reports.revenue(
                    on: connection, scope: .everything, from: from, to: to, granularity: .day,
                    reportingCurrency: nil, source: source)
                #expect(
                    revenue.totals.map { "\($0.currency) \($0.amounts.refundsMilli)" } == ["USD 31460"],
                    "revenue from \(source)")
                var revenueByDay: [String: Int64] = [:]
                for period in revenue.periods where period.amounts.refundsMilli != 0 {
                    revenueByDay[period.period] = period.amounts.refundsMilli
                }
                #expect(revenueByDay == refundedByDay.filter { $0.value != 0 }, "revenue from \(source)")
            }

            // The admin page's revenue panel over its own range says the same.
            let panel = try RevenuePanel.load(on: connection, now: to)
            let (panelFrom, panelTo) = RevenuePanel.range(now: to)
            let sameRange = try Reports.refunds(
                on: connection, scope: .everything, from: panelFrom, to: panelTo, limit: 100)
            #expect(panel.revenue.totals.map(\.amounts.refundsMilli) == sameRange.totals.amounts.map(\.amountMilli))
            #expect(AdminPage.revenueSection(panel).contains("refunds \(DecimalText.milliunits(31_460))"))

            // MRR: a reversed refund is no refund; a refund of any share ends the subscriber's MRR. At the end of
            // January only a3 pays (9.990 a month).
            let mrr = try Reports.mrr(on: connection, scope: .everything, from: from, to: to, now: to)
            let january = mrr.rows.filter { $0.month == "2025-01" }
            #expect(january.map { "\($0.currency) \($0.mrrMilli) \($0.subscribers)" } == ["USD 9990 1"])
        }
    }
}
