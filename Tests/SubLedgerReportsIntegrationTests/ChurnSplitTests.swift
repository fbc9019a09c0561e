import CatalogFile
import Foundation
import PostgresLibPQ
import SubLedgerCore
import SubLedgerStore
import Testing

@testable import SubLedgerReports

/// The churn report's split by cause, on a story of its own applied through the real ledger.
///
/// Day 0 is 2025-01-01 (`ReportFixtures`). Seven chains start between days 0 and 10; five lapse with Apple's
/// `expirationIntent` 1 to 5, one subscription period is refunded, and one consumable is refunded (a debit,
/// which is not subscription churn):
/// - v1 pro.monthly 0–30, intent 1 seen on day 31 → expired, voluntary;
/// - b1 pro.monthly 1–31, intent 2 seen on day 32 → expired, involuntary (billing);
/// - p1 premium.monthly 2–32, intent 3 seen on day 33 → expired, price increase declined;
/// - u1 pro.monthly 3–33, intent 4 seen on day 34 → expired, product unavailable;
/// - o1 pro.monthly 4–34, intent 5 seen on day 35 → expired, other (in `expired_by_reason` only);
/// - r1 pro.monthly 10–40, refunded on day 15 (seen on day 16) → revoked, refunded;
/// - a1 pro.monthly 5–35, renewed 35–65 (seen on day 36) → still active;
/// - k1 coins.100 on day 6, refunded on day 8 → a debit, not counted.
@Suite struct ChurnSplitTests {
    typealias F = ReportFixtures

    static func load(_ pool: PostgresPool) async throws {
        let store = LedgerStore(pool: pool)
        let catalogStore = CatalogStore(pool: pool)
        let (catalog, secrets) = try CatalogFile.read(F.catalogYAML)
        try await catalogStore.applyCatalog(catalog, secrets: secrets)
        guard let app = try await catalogStore.app(bundleID: F.bundleID) else {
            throw ReportError(code: .unknownApp, message: "")
        }
        func started(_ chain: String, product: String = "pro.monthly", from: Int, on day: Int) -> (Int, LedgerInput) {
            let transaction = F.subscription(chain, chain: chain, product: product, from: from, to: from + 30)
            let renewal = F.renewal(chain: chain, product: product, willAutoRenew: true, on: day)
            return (day, F.receipt(by: "owner-" + chain, [transaction], renewals: [renewal], on: day))
        }
        func lapsed(_ chain: String, product: String = "pro.monthly", from: Int, intent: Int) -> (Int, LedgerInput) {
            let day = from + 31
            let transaction = F.subscription(chain, chain: chain, product: product, from: from, to: from + 30)
            let renewal = F.renewal(chain: chain, product: product, willAutoRenew: false, on: day, intent: intent)
            return (day, F.receipt(by: nil, [transaction], renewals: [renewal], on: day))
        }
        let inputs: [(Int, LedgerInput)] = [
            started("v1", from: 0, on: 0), started("b1", from: 1, on: 1),
            started("p1", product: "premium.monthly", from: 2, on: 2), started("u1", from: 3, on: 3),
            started("o1", from: 4, on: 4), started("a1", from: 5, on: 5),
            (6, F.receipt(by: "owner-k1", [F.consumable("k1", on: 6, price: 990, currency: "USD")], on: 6)),
            (
                9,
                F.receipt(
                    by: "owner-k1", [F.consumable("k1", on: 6, refundedOn: 8, price: 990, currency: "USD")], on: 9)
            ),
            started("r1", from: 10, on: 10),
            (
                16,
                F.receipt(
                    by: "owner-r1", [F.subscription("r1", chain: "r1", from: 10, to: 40, refundedOn: 15)], on: 16)
            ),
            lapsed("v1", from: 0, intent: 1), lapsed("b1", from: 1, intent: 2),
            lapsed("p1", product: "premium.monthly", from: 2, intent: 3), lapsed("u1", from: 3, intent: 4),
            lapsed("o1", from: 4, intent: 5),
            (
                36,
                F.receipt(
                    by: nil,
                    [
                        F.subscription("a1", chain: "a1", from: 5, to: 35),
                        F.subscription("a1-2", chain: "a1", from: 35, to: 65),
                    ],
                    renewals: [F.renewal(chain: "a1", willAutoRenew: true, on: 36)], on: 36)
            ),
        ]
        for (day, input) in inputs.sorted(by: { $0.0 < $1.0 }) {
            try await store.apply(input, app: app, reference: .none, now: F.day(day))
        }
        try await ReportsDatabase.project(pool)
    }

    func churn(from: Int, to: Int) async throws -> ChurnReport {
        try await ReportsDatabase.withMigratedSchema { pool in
            try await Self.load(pool)
            return try await pool.withConnection { connection in
                try Reports.churn(
                    on: connection, scope: ReportScope(bundleID: F.bundleID), from: F.day(from), to: F.day(to))
            }
        }
    }

    @Test func churnSplitsExpiriesByIntentAndCountsSubscriptionRefunds() async throws {
        let report = try await churn(from: 0, to: 50)
        #expect(report.granularity == .day)
        let totals = report.totals
        #expect(totals.started == 7)
        #expect(totals.renewed == 1)
        #expect(totals.expired == 5)
        #expect(totals.voluntary == 1)
        #expect(totals.involuntary == 1)
        #expect(totals.priceIncreaseDeclined == 1)
        #expect(totals.productUnavailable == 1)
        #expect(
            totals.expiredByReason == [
                "voluntary": 1, "billing_error": 1, "price_increase_declined": 1, "product_unavailable": 1, "other": 1,
            ])
        // r1's refund counts on its revocation date; k1's (a consumable) is not subscription churn.
        #expect(totals.refunded == 1)
        #expect(report.periods[15].counts.refunded == 1)
        #expect(report.periods.filter { $0.counts.refunded > 0 }.count == 1)
        // Each lapse counts on the day the ledger learnt it.
        #expect(report.periods[31].counts.voluntary == 1)
        #expect(report.periods[32].counts.involuntary == 1)
        #expect(report.periods[33].counts.priceIncreaseDeclined == 1)
        #expect(report.periods[34].counts.productUnavailable == 1)
        #expect(report.periods[35].counts.expiredByReason == ["other": 1])
    }

    @Test func churnSplitLeavesOutWhatFallsOutsideTheRange() async throws {
        let report = try await churn(from: 16, to: 33)
        #expect(report.totals.refunded == 0)
        #expect(report.totals.voluntary == 1)
        #expect(report.totals.involuntary == 1)
        #expect(report.totals.priceIncreaseDeclined == 0)
        #expect(report.totals.expired == 2)
    }

    @Test func churnSplitIsInEveryFormat() async throws {
        let report = try await churn(from: 0, to: 50)
        let json = ReportFormat.json.render(.churn(report))
        #expect(json.contains(#""involuntary" : 1"#))
        #expect(json.contains(#""price_increase_declined" : 1"#))
        #expect(json.contains(#""product_unavailable" : 1"#))
        #expect(json.contains(#""refunded" : 1"#))
        #expect(json.contains(#""voluntary" : 1"#))
        let csv = ReportFormat.csv.render(.churn(report)).split(whereSeparator: \.isNewline)
        let splitColumns =
            "recovered,voluntary,involuntary,price_increase_declined,product_unavailable,refunded,committed_expired"
        #expect(csv.first?.hasSuffix(splitColumns) == true)
        #expect(csv.last?.hasPrefix("total,7,1,5,") == true)
        #expect(csv.last?.hasSuffix(",0,1,1,1,1,1,0") == true)
        let table = ReportFormat.table.render(.churn(report))
        #expect(table.contains("price_increase_declined"))
    }
}
