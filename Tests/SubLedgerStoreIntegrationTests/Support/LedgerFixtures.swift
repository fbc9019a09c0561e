import PostgresLibPQ
import SubLedgerCore
import SubLedgerTestSupport

@testable import SubLedgerStore

/// A catalog, accounts, days and Apple-shaped inputs for the database tests of the ledger.
enum LedgerFixtures {
    static let bundleID = "com.example.ledger"

    static let catalogYAML = """
        apps:
          - bundle_id: com.example.ledger
            apple_app_id: 1234567890
            environments: [production, sandbox]
            shared_secret: s3cret
            products:
              - { product_id: pro.monthly, type: auto_renewable, subscription_group_id: "g1", group_level: 2, entitlements: [pro] }
              - { product_id: premium.monthly, type: auto_renewable, subscription_group_id: "g1", group_level: 1, entitlements: [pro, premium] }
              - { product_id: coins.100, type: consumable, credits: 100 }
              - { product_id: lifetime, type: non_consumable, entitlements: [lifetime] }
        """

    /// The secret key that seals the fixture app's shared secret.
    static let secretKeys = try! SecretKeyring(keys: [SecretKey.generate()])

    static let start: Int64 = 1_760_000_000_000
    static let dayMilliseconds: Int64 = 86_400_000

    static func day(_ day: Int) -> Instant {
        Instant(millisecondsSince1970: start + Int64(day) * dayMilliseconds)
    }

    static func account(_ name: String) -> AccountID {
        // Fixture names are valid account ids; a typo fails the test at this line.
        try! AccountID(name)
    }

    /// Applies the catalog to the schema behind `pool` and returns the stored app.
    static func app(_ store: LedgerStore) async throws -> StoredApp {
        let (catalog, secrets) = try LedgerStore.readCatalog(catalogYAML)
        try await store.applyCatalog(catalog, secrets: secrets)
        guard let app = try await store.app(bundleID: bundleID) else {
            throw StoreError(code: .unknownApp, message: "")
        }
        return app
    }

    static func subscription(
        _ id: String, chain: String, product: String = "pro.monthly", from: Int, to: Int,
        refundedOn: Int? = nil, token: String? = nil
    ) -> Transaction {
        Transaction(
            transactionID: id, originalTransactionID: chain, productID: product, bundleID: bundleID,
            purchaseDate: day(from), originalPurchaseDate: day(from), expiresDate: day(to),
            revocationDate: refundedOn.map(day), revocationReason: refundedOn.map { _ in 0 },
            webOrderLineItemID: "w" + id, subscriptionGroupID: "g1", appAccountToken: token,
            environment: .production, source: .verifyReceipt)
    }

    static func consumable(_ id: String, on purchaseDay: Int, refundedOn: Int? = nil, token: String? = nil)
        -> Transaction
    {
        Transaction(
            transactionID: id, originalTransactionID: id, productID: "coins.100", bundleID: bundleID,
            purchaseDate: day(purchaseDay), revocationDate: refundedOn.map(day),
            revocationReason: refundedOn.map { _ in 1 },
            appAccountToken: token, environment: .production, source: .verifyReceipt)
    }

    static func renewal(chain: String, willAutoRenew: Bool, on observedDay: Int, intent: Int? = nil) -> RenewalInfo {
        RenewalInfo(
            originalTransactionID: chain, productID: "pro.monthly", autoRenewProductID: "pro.monthly",
            willAutoRenew: willAutoRenew, expirationIntent: intent, environment: .production,
            observedAt: day(observedDay))
    }

    static func receipt(
        by submitter: AccountID?, _ transactions: [Transaction], renewals: [RenewalInfo] = [], on observedDay: Int
    ) -> LedgerInput {
        LedgerInput(
            kind: .receipt, bundleID: bundleID, environment: .production, submitter: submitter,
            transactions: transactions, renewalInfo: renewals, observedAt: day(observedDay))
    }

    static func notification(_ transactions: [Transaction], renewals: [RenewalInfo] = [], on observedDay: Int)
        -> LedgerInput
    {
        LedgerInput(
            kind: .notification, bundleID: bundleID, environment: .production, submitter: nil,
            transactions: transactions, renewalInfo: renewals, observedAt: day(observedDay))
    }
}

extension LedgerStore {
    /// The owner of production chain `id`, read from the chain row's column (not the core's snapshot).
    func ownerColumn(of id: String, app: StoredApp) async throws -> String? {
        try await pool.query(
            "SELECT owner_account_id FROM chains WHERE app_id = $1 AND environment = 'Production' AND original_transaction_id = $2",
            [app.appID, id]
        ).first?.decode(String?.self, at: 0)
    }

    /// Idempotency key → account of every ledger entry of the app.
    func entryAccounts(app: StoredApp) async throws -> [String: String] {
        var result: [String: String] = [:]
        for row in try await pool.query(
            "SELECT idempotency_key, account_id FROM ledger_entries WHERE app_id = $1", [app.appID])
        {
            result[try row.decode(String.self, at: 0)] = try row.decode(String.self, at: 1)
        }
        return result
    }
}
