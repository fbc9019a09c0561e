import CatalogFile
import Foundation
import PostgresLibPQ
import SubLedgerCore
import SubLedgerReports
import SubLedgerStore

/// A small ledger whose every report row is known, built through the real ledger path (`LedgerStore.apply`).
///
/// Day 0 is 2025-01-01T00:00:00Z; reports run at day 40 (2025-02-10).
/// - c1: alice, pro.monthly, trial day 0–30, renewed day 30–60 (a notification on day 31) → active (paid).
/// - c2: bob, premium.monthly day 5–35 (intro), auto-renew off (intent 1), seen on day 36 → expired, voluntary.
/// - k1: carol, coins.100 on day 10 (0.99 USD), refunded on day 12 → debit.
/// - c3: dave, pro.monthly day 20–50 (9.99 EUR), refunded on day 25 → revoked.
/// - c4: pro.monthly day 15–45 from a notification, no account → unclaimed, active, ownerless.
/// - c5: erin, pro.monthly day 2–32, auto-renew off; frank submits it on day 8 → transferred to frank;
///   never rewritten after day 8, so its stored state is `active` and it lapses to `expired` at day 32.
/// - c6: gina, premium.monthly day 38–68 (intro) → active, expiring within 30 days of day 40.
enum ReportFixtures {
    static let bundleID = "com.example.reports"

    static let catalogYAML = """
        apps:
          - bundle_id: com.example.reports
            apple_app_id: 1999999999
            environments: [production, sandbox]
            products:
              - { product_id: pro.monthly, type: auto_renewable, subscription_group_id: "g1", group_level: 2, entitlements: [pro] }
              - { product_id: premium.monthly, type: auto_renewable, subscription_group_id: "g1", group_level: 1, entitlements: [pro, premium] }
              - { product_id: coins.100, type: consumable, credits: 100 }
              - { product_id: lifetime, type: non_consumable, entitlements: [lifetime] }
        """

    /// 2025-01-01T00:00:00Z.
    static let start: Int64 = 1_735_689_600_000

    static func day(_ day: Int) -> Instant { Instant(millisecondsSince1970: start + Int64(day) * 86_400_000) }

    /// When the reports run.
    static let now = day(40)

    static func account(_ name: String) -> AccountID { try! AccountID(name) }

    static func subscription(
        _ id: String, chain: String, product: String = "pro.monthly", from: Int, to: Int, refundedOn: Int? = nil,
        trial: Bool = false, intro: Bool = false, price: Int64? = nil, currency: String? = nil
    ) -> Transaction {
        Transaction(
            transactionID: id, chainID: chain, productID: product, bundleID: bundleID,
            purchaseDate: day(from), originalPurchaseDate: day(from), expiresDate: day(to),
            revocationDate: refundedOn.map(day), revocationReason: refundedOn.map { _ in 1 },
            webOrderLineItemID: "w" + id, subscriptionGroupID: "g1", isTrialPeriod: trial, isInIntroOfferPeriod: intro,
            environment: .production, source: .verifyReceipt, price: price, currency: currency)
    }

    static func renewal(
        chain: String, product: String = "pro.monthly", willAutoRenew: Bool, on observedDay: Int, intent: Int? = nil
    )
        -> RenewalInfo
    {
        RenewalInfo(
            chainID: chain, productID: product, autoRenewProductID: product, willAutoRenew: willAutoRenew,
            expirationIntent: intent, environment: .production, observedAt: day(observedDay))
    }

    static func receipt(
        by submitter: String?, _ transactions: [Transaction], renewals: [RenewalInfo] = [], on observedDay: Int
    )
        -> LedgerInput
    {
        LedgerInput(
            kind: submitter == nil ? .notification : .receipt, bundleID: bundleID, environment: .production,
            submitter: submitter.map(account), transactions: transactions, renewalInfo: renewals,
            observedAt: day(observedDay))
    }

    /// Applies the catalog and every input of the story, each at its own day.
    static func load(_ pool: PostgresPool) async throws {
        let store = LedgerStore(pool: pool)
        let catalogStore = CatalogStore(pool: pool)
        let (catalog, secrets) = try CatalogFile.read(catalogYAML)
        try await catalogStore.applyCatalog(catalog, secrets: secrets)
        guard let app = try await catalogStore.app(bundleID: bundleID) else {
            throw ReportError(code: .unknownApp, message: "")
        }
        let inputs: [(Int, LedgerInput)] = [
            (
                1,
                receipt(
                    by: "alice", [subscription("c1", chain: "c1", from: 0, to: 30, trial: true)],
                    renewals: [renewal(chain: "c1", willAutoRenew: true, on: 1)], on: 1)
            ),
            (
                3,
                receipt(
                    by: "erin", [subscription("c5", chain: "c5", from: 2, to: 32)],
                    renewals: [renewal(chain: "c5", willAutoRenew: false, on: 3)], on: 3)
            ),
            (
                6,
                receipt(
                    by: "bob",
                    [subscription("c2", chain: "c2", product: "premium.monthly", from: 5, to: 35, intro: true)],
                    renewals: [renewal(chain: "c2", product: "premium.monthly", willAutoRenew: true, on: 6)], on: 6)
            ),
            (8, receipt(by: "frank", [subscription("c5", chain: "c5", from: 2, to: 32)], on: 8)),
            (11, receipt(by: "carol", [consumable("k1", on: 10, price: 990, currency: "USD")], on: 11)),
            (13, receipt(by: "carol", [consumable("k1", on: 10, refundedOn: 12, price: 990, currency: "USD")], on: 13)),
            (16, receipt(by: nil, [subscription("c4", chain: "c4", from: 15, to: 45)], on: 16)),
            (
                21,
                receipt(
                    by: "dave", [subscription("c3", chain: "c3", from: 20, to: 50, price: 9990, currency: "EUR")],
                    on: 21)
            ),
            (
                26,
                receipt(
                    by: "dave",
                    [subscription("c3", chain: "c3", from: 20, to: 50, refundedOn: 25, price: 9990, currency: "EUR")],
                    on: 26)
            ),
            (
                31,
                receipt(
                    by: nil,
                    [
                        subscription("c1", chain: "c1", from: 0, to: 30, trial: true),
                        subscription("c1-2", chain: "c1", from: 30, to: 60),
                    ],
                    renewals: [renewal(chain: "c1", willAutoRenew: true, on: 31)], on: 31)
            ),
            (
                36,
                receipt(
                    by: "bob",
                    [subscription("c2", chain: "c2", product: "premium.monthly", from: 5, to: 35, intro: true)],
                    renewals: [
                        renewal(chain: "c2", product: "premium.monthly", willAutoRenew: false, on: 36, intent: 1)
                    ], on: 36)
            ),
            (
                39,
                receipt(
                    by: "gina",
                    [subscription("c6", chain: "c6", product: "premium.monthly", from: 38, to: 68, intro: true)],
                    renewals: [renewal(chain: "c6", product: "premium.monthly", willAutoRenew: true, on: 39)], on: 39)
            ),
        ]
        // Erin's receipt and the notification of c1's renewal are stored as raw inputs first, so the audit trail shows them.
        let erinsReceipt = try await store.storeSubmission(
            kind: .signedTransaction, body: "erin-receipt", account: account("erin"), app: app)
        let notification = try await pool.query(
            """
            INSERT INTO notifications (app_id, notification_id, version, notification_type, subtype, environment, body)
            VALUES (\(app.appID), 'n-c1', 'v2', 'DID_RENEW', NULL, 'Production', '{}') RETURNING notification_row_id
            """
        ).single().decode(Int64.self, at: 0)
        for (observedDay, input) in inputs {
            let reference: LedgerStore.InputReference =
                switch observedDay {
                case 3: .submission(erinsReceipt)
                case 31: .notification(notification)
                default: .none
                }
            try await store.apply(input, app: app, reference: reference, now: day(observedDay))
        }
        try await ReportsDatabase.project(pool)
    }

    static func consumable(_ id: String, on purchaseDay: Int, refundedOn: Int? = nil, price: Int64?, currency: String?)
        -> Transaction
    {
        Transaction(
            transactionID: id, chainID: id, productID: "coins.100", bundleID: bundleID,
            purchaseDate: day(purchaseDay), revocationDate: refundedOn.map(day),
            revocationReason: refundedOn.map { _ in 0 },
            environment: .production, source: .verifyReceipt, price: price, currency: currency)
    }
}
