import Foundation
import PostgresLibPQ
import SubLedgerCore

/// The apps and their catalogs (`apps`, `products`, `product_entitlements`, price points): what `catalog apply`
/// stores and every use case reads back as `StoredApp`. The apps' secrets are sealed with `secretKeys` when
/// stored and opened with them when read (docs/guides/operate.md, "Secrets at rest").
public struct CatalogStore: Sendable {
    public let pool: PostgresPool
    /// The keys that seal and open the apps' secrets at rest; empty: none.
    public let secretKeys: SecretKeyring
    /// The account erasure key, opened with `secretKeys`, shared by the apps this store reads.
    public let erasureKeys: AccountErasureKeys

    public init(pool: PostgresPool, secretKeys: SecretKeyring = SecretKeyring()) {
        self.pool = pool
        self.secretKeys = secretKeys
        self.erasureKeys = AccountErasureKeys(secretKeys: secretKeys)
    }

    /// What `applyCatalog` changed.
    public struct CatalogReport: Sendable, Hashable {
        public var apps: [String]
        public var products: Int
    }

    /// Stores every app of `catalog` (insert or update) with its products and their entitlements.
    ///
    /// Products missing from the file are kept: orders and transactions refer to them. A secret in
    /// `secrets` replaces the stored one; an app without one keeps what is stored. Secrets are sealed with
    /// the store's current secret key; without a key they are refused (`SecretError.noSecretKey`) unless
    /// `allowingPlaintextSecrets`, which stores them unsealed (docs/guides/operate.md, "Secrets at rest").
    @discardableResult
    public func applyCatalog(
        _ catalog: Catalog, secrets: [String: AppSecrets] = [:], allowingPlaintextSecrets: Bool = false
    ) async throws -> CatalogReport {
        try catalog.validate()
        // Sealed before the transaction: a missing key refuses the whole file, nothing is stored.
        var stored: [String: StoredSecrets] = [:]
        for app in catalog.apps {
            guard let given = secrets[app.bundleID] else { continue }
            stored[app.bundleID] = StoredSecrets(
                sharedSecret: try given.sharedSecret.map {
                    try storedForm(
                        $0, for: SecretPurpose(.sharedSecret, bundleID: app.bundleID), allowingPlaintextSecrets)
                },
                serverAPI: given.serverAPI,
                serverAPIPrivateKey: try given.serverAPI.map {
                    try storedForm(
                        $0.privateKeyPEM, for: SecretPurpose(.serverAPIPrivateKey, bundleID: app.bundleID),
                        allowingPlaintextSecrets)
                },
                googleServiceAccountKey: try given.googleServiceAccountKey.map {
                    try storedForm(
                        $0, for: SecretPurpose(.googleServiceAccountKey, bundleID: app.bundleID),
                        allowingPlaintextSecrets)
                },
                stripeSecretKey: try given.stripe.map {
                    try storedForm(
                        $0.secretKey, for: SecretPurpose(.stripeSecretKey, bundleID: app.bundleID),
                        allowingPlaintextSecrets)
                },
                stripeWebhookSecret: try given.stripe.map {
                    try storedForm(
                        $0.webhookSecret, for: SecretPurpose(.stripeWebhookSecret, bundleID: app.bundleID),
                        allowingPlaintextSecrets)
                })
        }
        let sealed = stored
        return try await pool.transaction { connection in
            var products = 0
            for app in catalog.apps {
                let secret = sealed[app.bundleID]
                let rows = try connection.query(
                    """
                    INSERT INTO apps (bundle_id, apple_app_id, environments, ownership_policy, catalog,
                        shared_secret, shared_secret_sealed, shared_secret_key_id,
                        server_api_issuer_id, server_api_key_id,
                        server_api_private_key, server_api_private_key_sealed, server_api_private_key_key_id,
                        google_play_package_name, google_service_account_key, google_service_account_key_sealed,
                        google_service_account_key_key_id,
                        stripe_secret_key, stripe_secret_key_sealed, stripe_secret_key_key_id,
                        stripe_webhook_secret, stripe_webhook_secret_sealed, stripe_webhook_secret_key_id)
                    VALUES (\(app.bundleID), \(app.appAppleID), \(PostgresArrayText.strings(app.environments.map(\.rawValue)))::text[],
                        \(app.ownershipPolicy.rawValue), \(PostgresValue.jsonb(try StoreJSON.encode(app))),
                        \(secret?.sharedSecret?.plaintext), \(secret?.sharedSecret?.sealed?.combined),
                        \(secret?.sharedSecret?.sealed?.keyID), \(secret?.serverAPI?.issuerID),
                        \(secret?.serverAPI?.keyID),
                        \(secret?.serverAPIPrivateKey?.plaintext), \(secret?.serverAPIPrivateKey?.sealed?.combined),
                            \(secret?.serverAPIPrivateKey?.sealed?.keyID),
                        \(app.googlePlay?.packageName), \(secret?.googleServiceAccountKey?.plaintext),
                        \(secret?.googleServiceAccountKey?.sealed?.combined),
                        \(secret?.googleServiceAccountKey?.sealed?.keyID),
                        \(secret?.stripeSecretKey?.plaintext), \(secret?.stripeSecretKey?.sealed?.combined),
                        \(secret?.stripeSecretKey?.sealed?.keyID),
                        \(secret?.stripeWebhookSecret?.plaintext), \(secret?.stripeWebhookSecret?.sealed?.combined),
                        \(secret?.stripeWebhookSecret?.sealed?.keyID))
                    ON CONFLICT (bundle_id) DO UPDATE SET apple_app_id = EXCLUDED.apple_app_id,
                        environments = EXCLUDED.environments, ownership_policy = EXCLUDED.ownership_policy,
                        catalog = EXCLUDED.catalog, updated_at = EXCLUDED.updated_at,
                        shared_secret = CASE WHEN \(secret?.sharedSecret != nil) THEN EXCLUDED.shared_secret ELSE
                            apps.shared_secret END,
                        shared_secret_sealed =
                            CASE WHEN \(secret?.sharedSecret != nil) THEN EXCLUDED.shared_secret_sealed ELSE
                                apps.shared_secret_sealed END,
                        shared_secret_key_id =
                            CASE WHEN \(secret?.sharedSecret != nil) THEN EXCLUDED.shared_secret_key_id ELSE
                                apps.shared_secret_key_id END,
                        server_api_issuer_id =
                            CASE WHEN \(secret?.serverAPI != nil) THEN EXCLUDED.server_api_issuer_id ELSE
                                apps.server_api_issuer_id END,
                        server_api_key_id = CASE WHEN \(secret?.serverAPI != nil) THEN EXCLUDED.server_api_key_id ELSE
                            apps.server_api_key_id END,
                        server_api_private_key =
                            CASE WHEN \(secret?.serverAPI != nil) THEN EXCLUDED.server_api_private_key ELSE
                                apps.server_api_private_key END,
                        server_api_private_key_sealed = CASE WHEN \(secret?.serverAPI != nil) THEN
                            EXCLUDED.server_api_private_key_sealed
                            ELSE apps.server_api_private_key_sealed END,
                        server_api_private_key_key_id = CASE WHEN \(secret?.serverAPI != nil) THEN
                            EXCLUDED.server_api_private_key_key_id
                            ELSE apps.server_api_private_key_key_id END,
                        google_play_package_name = EXCLUDED.google_play_package_name,
                        google_service_account_key = CASE WHEN \(secret?.googleServiceAccountKey != nil) THEN
                            EXCLUDED.google_service_account_key ELSE apps.google_service_account_key END,
                        google_service_account_key_sealed = CASE WHEN \(secret?.googleServiceAccountKey != nil) THEN
                            EXCLUDED.google_service_account_key_sealed ELSE apps.google_service_account_key_sealed END,
                        google_service_account_key_key_id = CASE WHEN \(secret?.googleServiceAccountKey != nil) THEN
                            EXCLUDED.google_service_account_key_key_id ELSE apps.google_service_account_key_key_id END,
                        stripe_secret_key = CASE WHEN \(secret?.stripeSecretKey != nil) THEN
                            EXCLUDED.stripe_secret_key ELSE apps.stripe_secret_key END,
                        stripe_secret_key_sealed = CASE WHEN \(secret?.stripeSecretKey != nil) THEN
                            EXCLUDED.stripe_secret_key_sealed ELSE apps.stripe_secret_key_sealed END,
                        stripe_secret_key_key_id = CASE WHEN \(secret?.stripeSecretKey != nil) THEN
                            EXCLUDED.stripe_secret_key_key_id ELSE apps.stripe_secret_key_key_id END,
                        stripe_webhook_secret = CASE WHEN \(secret?.stripeWebhookSecret != nil) THEN
                            EXCLUDED.stripe_webhook_secret ELSE apps.stripe_webhook_secret END,
                        stripe_webhook_secret_sealed = CASE WHEN \(secret?.stripeWebhookSecret != nil) THEN
                            EXCLUDED.stripe_webhook_secret_sealed ELSE apps.stripe_webhook_secret_sealed END,
                        stripe_webhook_secret_key_id = CASE WHEN \(secret?.stripeWebhookSecret != nil) THEN
                            EXCLUDED.stripe_webhook_secret_key_id ELSE apps.stripe_webhook_secret_key_id END
                    RETURNING app_id
                    """)
                let appID = try rows.single().decode(Int64.self, at: 0)
                for product in app.products {
                    try connection.query(
                        """
                        INSERT INTO products (app_id, product_id, product_type, subscription_group, credits,
                            duration_days,
                            group_level)
                        VALUES (\(appID), \(product.productID), \(product.type.rawValue),
                            \(product.subscriptionGroupID), \(product.creditsPerUnit), \(product.durationDays),
                            \(product.groupLevel))
                        ON CONFLICT (app_id, product_id) DO UPDATE SET product_type = EXCLUDED.product_type,
                            subscription_group = EXCLUDED.subscription_group, credits = EXCLUDED.credits,
                            duration_days = EXCLUDED.duration_days, group_level = EXCLUDED.group_level,
                            updated_at = EXCLUDED.updated_at
                        """)
                    try connection.query(
                        """
                        DELETE FROM product_entitlements WHERE app_id = \(appID) AND product_id = \(product.productID)
                        """)
                    for entitlement in Set(product.entitlementIDs).sorted() {
                        try connection.query(
                            """
                            INSERT INTO product_entitlements (app_id, product_id, entitlement_id) VALUES (\(appID),
                                \(product.productID), \(entitlement))
                            """)
                    }
                    if let prices = product.prices {
                        try CatalogPriceRows.replace(prices, of: product.productID, appID: appID, on: connection)
                    }
                    products += 1
                }
                // The reports' per-chain aggregates price transactions from the catalog's price points and count
                // auto-renewable products only: every chain of the app is queued for the report projector, in this
                // transaction (applies go on meanwhile; the reports catch up with the projector).
                try connection.query(ReportProjectionQueueRows.enqueueApp(appID))
            }
            try connection.query("SELECT pg_notify('subledger_catalog', '')")
            return CatalogReport(apps: catalog.apps.map(\.bundleID), products: products)
        }
    }

    /// The stored app with `bundleID`, or `nil`. Its secrets are opened with the store's keys.
    public func app(bundleID: String) async throws -> StoredApp? {
        try await pool.withConnection { connection in
            let rows = try connection.query("SELECT \(Self.appColumns) FROM apps WHERE bundle_id = \(bundleID)")
            return try rows.first.map(storedApp)
        }
    }

    /// The stored app sold on Google Play as `packageName`, or `nil`.
    public func app(googlePlayPackage packageName: String) async throws -> StoredApp? {
        try await pool.withConnection { connection in
            let rows = try connection.query(
                "SELECT \(Self.appColumns) FROM apps WHERE google_play_package_name = \(packageName)")
            return try rows.first.map(storedApp)
        }
    }

    /// Every stored app that sells through Stripe (both Stripe secrets stored), by bundle id.
    public func appsSellingOnStripe() async throws -> [StoredApp] {
        try await pool.withConnection { connection in
            try connection.query(
                """
                SELECT \(Self.appColumns) FROM apps
                WHERE (stripe_secret_key IS NOT NULL OR stripe_secret_key_sealed IS NOT NULL)
                    AND (stripe_webhook_secret IS NOT NULL OR stripe_webhook_secret_sealed IS NOT NULL)
                ORDER BY bundle_id
                """
            ).map(storedApp)
        }
    }

    /// Every stored app.
    public func apps() async throws -> [StoredApp] {
        try await pool.withConnection { connection in
            try connection.query("SELECT \(Self.appColumns) FROM apps ORDER BY bundle_id").map(storedApp)
        }
    }

    static let appColumns: PostgresQuery = """
        app_id, catalog::text, bundle_id, server_api_issuer_id, server_api_key_id, \
        shared_secret, shared_secret_sealed, shared_secret_key_id, \
        server_api_private_key, server_api_private_key_sealed, server_api_private_key_key_id, \
        google_service_account_key, google_service_account_key_sealed, google_service_account_key_key_id, \
        stripe_secret_key, stripe_secret_key_sealed, stripe_secret_key_key_id, \
        stripe_webhook_secret, stripe_webhook_secret_sealed, stripe_webhook_secret_key_id
        """

    func storedApp(_ row: PostgresRow) throws -> StoredApp {
        let bundleID = try row.decode(String.self, at: 2)
        let sharedSecret = try StoredSecret(row, at: 5)?.open(
            for: SecretPurpose(.sharedSecret, bundleID: bundleID), with: secretKeys)
        var serverAPI: ServerAPICredentials?
        if let issuer = try row.decode(String?.self, at: 3), let key = try row.decode(String?.self, at: 4),
            let pem = try StoredSecret(row, at: 8)?.open(
                for: SecretPurpose(.serverAPIPrivateKey, bundleID: bundleID), with: secretKeys)
        {
            serverAPI = ServerAPICredentials(issuerID: issuer, keyID: key, privateKeyPEM: pem)
        }
        var stripe: StripeSecrets?
        if let secretKey = try StoredSecret(row, at: 14)?.open(
            for: SecretPurpose(.stripeSecretKey, bundleID: bundleID), with: secretKeys),
            let webhookSecret = try StoredSecret(row, at: 17)?.open(
                for: SecretPurpose(.stripeWebhookSecret, bundleID: bundleID), with: secretKeys)
        {
            stripe = StripeSecrets(secretKey: secretKey, webhookSecret: webhookSecret)
        }
        return StoredApp(
            appID: try row.decode(Int64.self, at: 0),
            definition: try StoreJSON.decode(App.self, from: row.decode(String.self, at: 1), what: "app"),
            sharedSecret: sharedSecret,
            serverAPI: serverAPI,
            googleServiceAccountKey: try StoredSecret(row, at: 11)?.open(
                for: SecretPurpose(.googleServiceAccountKey, bundleID: bundleID), with: secretKeys),
            stripe: stripe,
            erasureKeys: erasureKeys)
    }

    /// `secret` as it is to be stored: sealed with the current key, or plaintext when no key is
    /// configured and that was explicitly allowed.
    func storedForm(
        _ secret: String, for purpose: SecretPurpose, _ allowingPlaintextSecrets: Bool
    ) throws(SecretError) -> StoredSecret {
        if secretKeys.current != nil { return .sealed(try secretKeys.seal(secret, for: purpose)) }
        guard allowingPlaintextSecrets else {
            throw SecretError(
                .noSecretKey,
                "the catalog holds the \(purpose) but no secret key is configured to seal it: set "
                    + "SUBLEDGER_SECRET_KEY_FILE or SUBLEDGER_SECRET_KEY (docs/guides/operate.md, \"Secrets at rest\"), "
                    + "or explicitly allow plaintext secrets (`catalog apply --allow-plaintext-secrets`)")
        }
        return .plaintext(secret)
    }

    /// An app's secrets as `applyCatalog` writes them.
    struct StoredSecrets: Sendable {
        var sharedSecret: StoredSecret?
        var serverAPI: ServerAPICredentials?
        var serverAPIPrivateKey: StoredSecret?
        var googleServiceAccountKey: StoredSecret?
        var stripeSecretKey: StoredSecret?
        var stripeWebhookSecret: StoredSecret?
    }
}
