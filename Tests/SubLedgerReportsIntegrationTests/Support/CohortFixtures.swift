import CatalogFile
import Foundation
import PostgresLibPQ
import SubLedgerCore
import SubLedgerReports
import SubLedgerStore

/// A small ledger for the cohort reports whose every figure is worked out by hand in `CohortReportsTests`,
/// written through the real ledger path (`LedgerStore.apply`).
///
/// Dates are 2025, UTC; the reports run on 2025-07-01. Prices in milli-units.
/// - A (alice): pro.monthly 9.99 USD, paid Jan 5, Feb 5, Mar 5, Apr 5 (each for a month), then stops.
/// - B (bob): a 7-day free trial of pro.monthly from Jan 10, then paid Jan 17 and Feb 17 (9.99 USD), then stops.
/// - C (carol): pro.monthly Jan 20 (9.99 USD), refunded on Jan 25.
/// - D (dave): pro.yearly 54.99 EUR, paid Feb 3 for a year.
/// - E (erin): pro.monthly Feb 10 (9.99 USD); upgrades to premium.monthly on Feb 25 (14.99 USD, Apple revokes the
///   Feb 10 transaction with `isUpgraded`), renews it Mar 25, then stops.
/// - F (frank): a free trial from Feb 1 to Feb 8, never pays.
/// - G (gina): a free trial from Jun 28 to Jul 5: still running on Jul 1.
/// - H (hank): a paid intro offer (0.99 USD) from Mar 1 to Apr 1, then pays full price Apr 1 (9.99 USD).
enum CohortFixtures {
    static let bundleID = "com.example.cohorts"

    static let catalogYAML = """
        apps:
          - bundle_id: com.example.cohorts
            apple_app_id: 1999999999
            environments: [production, sandbox]
            products:
              - { product_id: pro.monthly, type: auto_renewable, subscription_group_id: "g1", group_level: 2, entitlements: [pro] }
              - { product_id: pro.yearly, type: auto_renewable, subscription_group_id: "g1", group_level: 2, entitlements: [pro] }
              - { product_id: premium.monthly, type: auto_renewable, subscription_group_id: "g1", group_level: 1, entitlements: [pro] }
        """

    /// When the reports run: 2025-07-01T00:00:00Z.
    static let now = date(7, 1)

    /// Midnight UTC of `year`-`month`-`day`.
    static func date(_ month: Int, _ day: Int, year: Int = 2025) -> Instant {
        CalendarDay.start(of: CivilDate.days(year: Int64(year), month: Int64(month), day: Int64(day)))
    }

    /// One transaction of `chain`, for the period [`from`, `to`).
    static func payment(
        _ id: String, chain: String, product: String = "pro.monthly", from: Instant, to: Instant, price: Int64?,
        currency: String? = "USD", refundedOn: Instant? = nil, upgradedOn: Instant? = nil, trial: Bool = false,
        intro: Bool = false
    ) -> Transaction {
        Transaction(
            transactionID: id, chainID: chain, productID: product, bundleID: bundleID,
            purchaseDate: from, originalPurchaseDate: from, expiresDate: to,
            revocationDate: refundedOn ?? upgradedOn, revocationReason: refundedOn.map { _ in 0 },
            webOrderLineItemID: "w" + id, subscriptionGroupID: "g1", isTrialPeriod: trial, isInIntroOfferPeriod: intro,
            offerType: trial || intro ? 1 : nil, offerDiscountType: trial ? "FREE_TRIAL" : intro ? "PAY_UP_FRONT" : nil,
            isUpgraded: upgradedOn != nil, environment: .production, source: .verifyReceipt,
            price: trial ? 0 : price, currency: currency)
    }

    static let chains: [(account: String, transactions: [Transaction])] = [
        (
            "alice",
            [
                payment("a1", chain: "A", from: date(1, 5), to: date(2, 5), price: 9_990),
                payment("a2", chain: "A", from: date(2, 5), to: date(3, 5), price: 9_990),
                payment("a3", chain: "A", from: date(3, 5), to: date(4, 5), price: 9_990),
                payment("a4", chain: "A", from: date(4, 5), to: date(5, 5), price: 9_990),
            ]
        ),
        (
            "bob",
            [
                payment("b0", chain: "B", from: date(1, 10), to: date(1, 17), price: nil, trial: true),
                payment("b1", chain: "B", from: date(1, 17), to: date(2, 17), price: 9_990),
                payment("b2", chain: "B", from: date(2, 17), to: date(3, 17), price: 9_990),
            ]
        ),
        (
            "carol",
            [payment("c1", chain: "C", from: date(1, 20), to: date(2, 20), price: 9_990, refundedOn: date(1, 25))]
        ),
        (
            "dave",
            [
                payment(
                    "d1", chain: "D", product: "pro.yearly", from: date(2, 3), to: date(2, 3, year: 2026),
                    price: 54_990, currency: "EUR")
            ]
        ),
        (
            "erin",
            [
                payment("e1", chain: "E", from: date(2, 10), to: date(3, 10), price: 9_990, upgradedOn: date(2, 25)),
                payment(
                    "e2", chain: "E", product: "premium.monthly", from: date(2, 25), to: date(3, 25), price: 14_990),
                payment(
                    "e3", chain: "E", product: "premium.monthly", from: date(3, 25), to: date(4, 25), price: 14_990),
            ]
        ),
        ("frank", [payment("f0", chain: "F", from: date(2, 1), to: date(2, 8), price: nil, trial: true)]),
        ("gina", [payment("g0", chain: "G", from: date(6, 28), to: date(7, 5), price: nil, trial: true)]),
        (
            "hank",
            [
                payment("h0", chain: "H", from: date(3, 1), to: date(4, 1), price: 990, intro: true),
                payment("h1", chain: "H", from: date(4, 1), to: date(5, 1), price: 9_990),
            ]
        ),
    ]

    /// Applies the catalog and each chain's transactions, one receipt per transaction in purchase order (the
    /// refund and the upgrade arrive as the revoked version of the transaction, later).
    static func load(_ pool: PostgresPool) async throws {
        let store = LedgerStore(pool: pool)
        let catalogStore = CatalogStore(pool: pool)
        let (catalog, secrets) = try CatalogFile.read(catalogYAML)
        try await catalogStore.applyCatalog(catalog, secrets: secrets)
        guard let app = try await catalogStore.app(bundleID: bundleID) else {
            throw ReportError(code: .unknownApp, message: "")
        }
        for (account, transactions) in chains {
            for transaction in transactions {
                var first = transaction
                first.revocationDate = nil
                first.revocationReason = nil
                first.isUpgraded = false
                try await apply(store, app: app, account: account, [first], at: transaction.purchaseDate)
                if transaction.revocationDate != nil, let revoked = transaction.revocationDate {
                    try await apply(store, app: app, account: account, [transaction], at: revoked)
                }
            }
        }
        try await fillRevenueColumns(pool)
        // The columns were filled behind the ledger's back: the aggregates are recomputed from them.
        try await store.requeueReportAggregates(app: app)
        try await ReportsDatabase.project(pool)
    }

    static func apply(
        _ store: LedgerStore, app: StoredApp, account: String, _ transactions: [Transaction], at moment: Instant
    )
        async throws
    {
        let input = LedgerInput(
            kind: .receipt, bundleID: bundleID, environment: .production, submitter: try AccountID(account),
            transactions: transactions, renewalInfo: [], observedAt: moment)
        try await store.apply(input, app: app, reference: .none, now: moment)
    }

    /// Fills the price columns of schema step 14 from the kept payload, as that step does for the rows that exist
    /// when it runs (idempotent: where ingestion already fills them, it writes the same values).
    static func fillRevenueColumns(_ pool: PostgresPool) async throws {
        try await pool.query(
            """
            UPDATE transactions SET
                price_milliunits = (payload->'transaction'->>'price')::bigint,
                currency = payload->'transaction'->>'currency',
                offer_type = (payload->'transaction'->>'offerType')::integer,
                offer_discount_type = payload->'transaction'->>'offerDiscountType',
                is_trial_period = coalesce((payload->'transaction'->>'isTrialPeriod')::boolean, false),
                is_in_intro_offer_period = coalesce((payload->'transaction'->>'isInIntroOfferPeriod')::boolean, false)
            """)
    }
}
