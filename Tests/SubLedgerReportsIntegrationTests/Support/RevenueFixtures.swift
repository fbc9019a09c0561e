import CatalogFile
import Foundation
import PostgresLibPQ
import SubLedgerCore
import SubLedgerReports
import SubLedgerStore

/// A small ledger whose revenue is computed by hand, built through the real ledger path (`LedgerStore.apply`).
///
/// Day 0 is 2025-01-01T00:00:00Z. Periods are 30 days (a month once normalized: round(30 / 30.436875) = 1)
/// or 365 days (12 months). Two apps:
/// - `com.example.money` (standard commission, storefront USA, USD):
///   - m1: pro.monthly 9.99, days 5–35, 35–65, 65–95, 95–125.
///   - m2: pro.monthly 9.99, days 10–40, 40–70; **upgrades** on day 50 to premium.monthly 14.99, days 50–80, 80–110,
///     110–140 (the 40–70 period is marked upgraded at day 50).
///   - m3: pro.monthly 9.99, days 20–50, **refunded** on day 25.
///   - y1: pro.yearly, days 15–380 and 380–745, from verifyReceipt **without a price**: the catalog's 99.99 USD
///     (estimated).
///   - t1: a free **trial** of pro.monthly days 0–7 (price 0, `FREE_TRIAL`) that **converts**: 9.99, days 7–37,
///     37–67, then stops.
/// - `com.example.small` (**Small Business Program** from 2025-01-01; storefront GBR, GBP, tax rate 20 %):
///   - s1: small.monthly 4.99, days 3–33, lapses, and comes back days 100–130.
enum RevenueFixtures {
    static let money = "com.example.money"
    static let small = "com.example.small"

    static let catalogYAML = """
        apps:
          - bundle_id: com.example.money
            apple_app_id: 1999999999
            environments: [production]
            products:
              - { product_id: pro.monthly, type: auto_renewable, subscription_group_id: "g1", group_level: 2, entitlements: [pro] }
              - { product_id: premium.monthly, type: auto_renewable, subscription_group_id: "g1", group_level: 1, entitlements: [pro] }
              - product_id: pro.yearly
                type: auto_renewable
                subscription_group_id: "g1"
                group_level: 2
                entitlements: [pro]
                prices:
                  - { currency: USD, price: "99.99", effective_from: "2024-06-01" }
                  - { currency: EUR, price: "109.99", storefront: FRA }
          - bundle_id: com.example.small
            apple_app_id: 1999999999
            environments: [production]
            products:
              - { product_id: small.monthly, type: auto_renewable, subscription_group_id: "g2", entitlements: [pro] }
        """

    /// 2025-01-01T00:00:00Z.
    static let start: Int64 = 1_735_689_600_000
    static func day(_ day: Int) -> Instant { Instant(millisecondsSince1970: start + Int64(day) * 86_400_000) }

    static func transaction(
        _ id: String, chain: String, bundleID: String = money, product: String = "pro.monthly", from: Int, to: Int,
        price: Int64?, currency: String? = "USD", storefront: String? = "USA", refundedOn: Int? = nil,
        upgradedOn: Int? = nil, trial: Bool = false
    ) -> Transaction {
        Transaction(
            transactionID: id, chainID: chain, productID: product, bundleID: bundleID,
            purchaseDate: day(from), originalPurchaseDate: day(from), expiresDate: day(to),
            revocationDate: refundedOn.map(day) ?? upgradedOn.map(day), revocationReason: refundedOn.map { _ in 0 },
            webOrderLineItemID: "w" + id, subscriptionGroupID: bundleID == money ? "g1" : "g2",
            isTrialPeriod: trial, offerType: trial ? 1 : nil, offerDiscountType: trial ? "FREE_TRIAL" : nil,
            isUpgraded: upgradedOn != nil, environment: .production,
            source: price == nil ? .verifyReceipt : .signedTransaction,
            price: price, currency: price == nil ? nil : currency, storefront: price == nil ? nil : storefront)
    }

    /// Every chain: its app, its account, and its transactions as finally known.
    static let chains: [(bundleID: String, account: String, transactions: [Transaction])] = [
        (
            money, "ann",
            [
                transaction("m1-1", chain: "m1", from: 5, to: 35, price: 9_990),
                transaction("m1-2", chain: "m1", from: 35, to: 65, price: 9_990),
                transaction("m1-3", chain: "m1", from: 65, to: 95, price: 9_990),
                transaction("m1-4", chain: "m1", from: 95, to: 125, price: 9_990),
            ]
        ),
        (
            money, "ben",
            [
                transaction("m2-1", chain: "m2", from: 10, to: 40, price: 9_990),
                transaction("m2-2", chain: "m2", from: 40, to: 70, price: 9_990, upgradedOn: 50),
                transaction("m2-3", chain: "m2", product: "premium.monthly", from: 50, to: 80, price: 14_990),
                transaction("m2-4", chain: "m2", product: "premium.monthly", from: 80, to: 110, price: 14_990),
                transaction("m2-5", chain: "m2", product: "premium.monthly", from: 110, to: 140, price: 14_990),
            ]
        ),
        (money, "cat", [transaction("m3-1", chain: "m3", from: 20, to: 50, price: 9_990, refundedOn: 25)]),
        (
            money, "dan",
            [
                transaction("y1-1", chain: "y1", product: "pro.yearly", from: 15, to: 380, price: nil),
                transaction("y1-2", chain: "y1", product: "pro.yearly", from: 380, to: 745, price: nil),
            ]
        ),
        (
            money, "eve",
            [
                transaction("t1-0", chain: "t1", from: 0, to: 7, price: 0, trial: true),
                transaction("t1-1", chain: "t1", from: 7, to: 37, price: 9_990),
                transaction("t1-2", chain: "t1", from: 37, to: 67, price: 9_990),
            ]
        ),
        (
            small, "fay",
            [
                transaction(
                    "s1-1", chain: "s1", bundleID: small, product: "small.monthly", from: 3, to: 33, price: 4_990,
                    currency: "GBP", storefront: "GBR"),
                transaction(
                    "s1-2", chain: "s1", bundleID: small, product: "small.monthly", from: 100, to: 130, price: 4_990,
                    currency: "GBP", storefront: "GBR"),
            ]
        ),
    ]

    /// Applies the catalog, the revenue settings and every chain (one receipt per chain, observed the day after its
    /// last purchase).
    static func load(_ pool: PostgresPool) async throws {
        let store = LedgerStore(pool: pool)
        let catalogStore = CatalogStore(pool: pool)
        let settings = RevenueSettingsStore(pool: pool)
        let (catalog, secrets) = try CatalogFile.read(catalogYAML)
        try await catalogStore.applyCatalog(catalog, secrets: secrets)
        try await settings.setSmallBusinessPeriod(
            SmallBusinessPeriod(fromDay: CalendarDay.parse("2025-01-01")!), bundleID: small)
        try await settings.applyTaxRates(try RateFile.taxRates("GBR,2025-01-01,0.2"))
        try await settings.applyExchangeRates(
            try RateFile.exchangeRates("2025-01-01,GBP,1.25"), reportingCurrency: "USD")
        for chain in chains {
            guard let app = try await catalogStore.app(bundleID: chain.bundleID) else {
                throw ReportError(code: .unknownApp, message: "")
            }
            let observed = chain.transactions.map(\.purchaseDate).max()!.adding(milliseconds: 86_400_000)
            let input = LedgerInput(
                kind: .receipt, bundleID: chain.bundleID, environment: .production,
                submitter: try AccountID(chain.account),
                transactions: chain.transactions, renewalInfo: [], observedAt: observed)
            try await store.apply(input, app: app, now: observed)
        }
        try await ReportsDatabase.project(pool)
    }
}
