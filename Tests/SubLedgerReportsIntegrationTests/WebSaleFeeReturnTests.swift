import CatalogFile
import PostgresLibPQ
import SubLedgerCore
import SubLedgerStore
import Testing

@testable import SubLedgerReports

/// Paddle's refunds give back the part of Paddle's fee they state, and its sales are paid out in the payout
/// currency as Paddle states them: the revenue report reads the same from the aggregates and from the ledger.
@Suite struct WebSaleFeeReturnTests {
    static let bundleID = "com.example.web"
    static let day: Int64 = 86_400_000
    static let base: Int64 = 1_735_689_600_000  // 2025-01-01

    static func at(_ days: Int64, hours: Int64 = 10) -> Instant {
        Instant(millisecondsSince1970: base + days * day + hours * 3_600_000)
    }

    /// Two sales of 11.000 USD (1.000 of Paddle's tax, 1.050 of its fee), paid out in EUR: the first refunded 3.300
    /// on day 3 (0.320 of the fee given back), the second refunded whole on day 5 (all of its fee given back).
    static func sales() -> [Transaction] {
        func sale(_ id: String, days: Int64) -> Transaction {
            Transaction(
                transactionID: id, chainID: id, productID: "pro_web", bundleID: bundleID,
                purchaseDate: at(days), expiresDate: at(days + 30), environment: .production,
                source: .storeAPI(.paddle), price: 11_000, currency: "USD", processingFee: 1_050, tax: 1_000,
                payout: StatedPayout(currency: "EUR", total: 10_120, tax: 920, fee: 970, earnings: 8_230))
        }
        var partial = sale("txn_1", days: 1)
        partial.partialRefunds = [PartialRefund(date: at(3), amount: 3_300, fee: 320, payoutEarnings: 2_680)]
        var revoked = sale("txn_2", days: 2)
        revoked.revocationDate = at(5)
        revoked.revocationReason = 0
        revoked.refundedFee = 1_050
        revoked.payout?.refundedEarnings = 8_230
        return [partial, revoked]
    }

    @Test func refundsGiveBackTheFeeTheyStateAndPayoutsAreAsStated() async throws {
        try await ReportsDatabase.withMigratedSchema { pool in
            let catalogStore = CatalogStore(pool: pool)
            let (catalog, secrets) = try CatalogFile.read(
                """
                apps:
                  - bundle_id: \(Self.bundleID)
                    environments: [production]
                    products:
                      - { product_id: pro_web, type: auto_renewable, subscription_group_id: "web", entitlements: [pro], store: paddle }
                """)
            try await catalogStore.applyCatalog(catalog, secrets: secrets)
            let app = try #require(try await catalogStore.app(bundleID: Self.bundleID))
            let store = LedgerStore(pool: pool)
            for sale in Self.sales() {
                try await store.apply(
                    LedgerInput(
                        kind: .notification, bundleID: Self.bundleID, environment: .production, submitter: nil,
                        transactions: [sale], renewalInfo: [], observedAt: Self.at(6)),
                    app: app, reference: .none, now: Self.at(6))
            }
            try await ReportsDatabase.project(pool)
            try await pool.withConnection { connection in
                var reports: [RevenueReport] = []
                for source in [MoneySource.dayTotals, .facts, .ledger] {
                    reports.append(
                        try Reports.revenue(
                            on: connection, scope: .everything, from: Self.at(0, hours: 0), to: Self.at(31, hours: 0),
                            granularity: .month, reportingCurrency: nil, source: source))
                }
                for report in reports {
                    let usd = try #require(report.totals.first { $0.currency == "USD" }?.amounts)
                    #expect(
                        usd.grossMilli == 22_000 && usd.refundsMilli == 14_300 && usd.sales == 2 && usd.refunds == 2)
                    // 2.100 of fees, less 0.320 and 1.050 given back.
                    #expect(usd.processingFeeMilli == 730)
                    // Paddle's tax 2.000, less the refunds' shares 0.300 and 1.000.
                    #expect(usd.taxMilli == 700)
                    #expect(usd.commissionMilli == 0)
                    #expect(usd.proceedsMilli == 22_000 - 14_300 - 700 - 730)

                    let euros = try #require(report.payoutTotals.first)
                    #expect(report.payoutTotals.count == 1 && euros.currency == "EUR")
                    #expect(euros.sales == 2 && euros.totalMilli == 20_240 && euros.feeMilli == 1_940)
                    #expect(euros.earningsMilli == 16_460 && euros.refunds == 2)
                    #expect(euros.refundedEarningsMilli == 2_680 + 8_230)
                    #expect(euros.netEarningsMilli == 16_460 - 10_910)
                    #expect(report.payouts.map(\.period) == ["2025-01-01"])
                }
                #expect(reports[0] == reports[2])
            }
        }
    }
}
