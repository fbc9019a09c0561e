import CatalogFile
import PostgresLibPQ
import SubLedgerCore
import SubLedgerStore
import SubLedgerTestSupport

/// A catalog, accounts, days and Apple-shaped inputs for the database tests of the ledger.
public enum LedgerFixtures {
    public static let bundleID = "com.example.ledger"

    public static let catalogYAML = """
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
    public static let secretKeys = try! SecretKeyring(keys: [SecretKey.generate()])

    public static let start: Int64 = 1_760_000_000_000
    public static let dayMilliseconds: Int64 = 86_400_000

    public static func day(_ day: Int) -> Instant {
        Instant(millisecondsSince1970: start + Int64(day) * dayMilliseconds)
    }

    public static func account(_ name: String) -> AccountID {
        // Fixture names are valid account ids; a typo fails the test at this line.
        try! AccountID(name)
    }

    /// Applies the catalog to the schema behind `pool` (its secret sealed with `secretKeys`) and returns the
    /// stored app.
    public static func app(on pool: PostgresPool) async throws -> StoredApp {
        let store = CatalogStore(pool: pool, secretKeys: secretKeys)
        let (catalog, secrets) = try CatalogFile.read(catalogYAML)
        try await store.applyCatalog(catalog, secrets: secrets)
        guard let app = try await store.app(bundleID: bundleID) else {
            throw StoreError(code: .unknownApp, message: "")
        }
        return app
    }

    public static func subscription(
        _ id: String, chain: String, product: String = "pro.monthly", from: Int, to: Int,
        refundedOn: Int? = nil, token: String? = nil
    ) -> Transaction {
        Transaction(
            transactionID: id, chainID: chain, productID: product, bundleID: bundleID,
            purchaseDate: day(from), originalPurchaseDate: day(from), expiresDate: day(to),
            revocationDate: refundedOn.map(day), revocationReason: refundedOn.map { _ in 0 },
            webOrderLineItemID: "w" + id, subscriptionGroupID: "g1", accountHint: token,
            environment: .production, source: .verifyReceipt)
    }

    public static func consumable(_ id: String, on purchaseDay: Int, refundedOn: Int? = nil, token: String? = nil)
        -> Transaction
    {
        Transaction(
            transactionID: id, chainID: id, productID: "coins.100", bundleID: bundleID,
            purchaseDate: day(purchaseDay), revocationDate: refundedOn.map(day),
            revocationReason: refundedOn.map { _ in 1 },
            accountHint: token, environment: .production, source: .verifyReceipt)
    }

    public static func renewal(chain: String, willAutoRenew: Bool, on observedDay: Int, intent: Int? = nil)
        -> RenewalInfo
    {
        RenewalInfo(
            chainID: chain, productID: "pro.monthly", autoRenewProductID: "pro.monthly",
            willAutoRenew: willAutoRenew, expirationIntent: intent, environment: .production,
            observedAt: day(observedDay))
    }

    public static func receipt(
        by submitter: AccountID?, _ transactions: [Transaction], renewals: [RenewalInfo] = [], on observedDay: Int
    ) -> LedgerInput {
        LedgerInput(
            kind: .receipt, bundleID: bundleID, environment: .production, submitter: submitter,
            transactions: transactions, renewalInfo: renewals, observedAt: day(observedDay))
    }

    public static func notification(_ transactions: [Transaction], renewals: [RenewalInfo] = [], on observedDay: Int)
        -> LedgerInput
    {
        LedgerInput(
            kind: .notification, bundleID: bundleID, environment: .production, submitter: nil,
            transactions: transactions, renewalInfo: renewals, observedAt: day(observedDay))
    }
}
