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
                stores: try given.stores.all.map { secret in
                    (
                        secret.store, secret.name,
                        try storedForm(
                            secret.value,
                            for: SecretPurpose(.storeSecret(secret.store, secret.name), bundleID: app.bundleID),
                            allowingPlaintextSecrets)
                    )
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
                        google_play_package_name)
                    VALUES (\(app.bundleID), \(app.appAppleID), \(PostgresArrayText.strings(app.environments.map(\.rawValue)))::text[],
                        \(app.ownershipPolicy.rawValue), \(PostgresValue.jsonb(try StoreJSON.encode(app))),
                        \(secret?.sharedSecret?.plaintext), \(secret?.sharedSecret?.sealed?.combined),
                        \(secret?.sharedSecret?.sealed?.keyID), \(secret?.serverAPI?.issuerID),
                        \(secret?.serverAPI?.keyID),
                        \(secret?.serverAPIPrivateKey?.plaintext), \(secret?.serverAPIPrivateKey?.sealed?.combined),
                            \(secret?.serverAPIPrivateKey?.sealed?.keyID),
                        \(app.googlePlay?.packageName))
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
                        google_play_package_name = EXCLUDED.google_play_package_name
                    RETURNING app_id
                    """)
                let appID = try rows.single().decode(Int64.self, at: 0)
                // Each store secret given replaces the stored one of its name; one not given is kept.
                for (store, name, stored) in secret?.stores ?? [] {
                    try connection.query(
                        """
                        INSERT INTO app_store_secrets (app_id, store, name, plaintext, sealed, key_id)
                        VALUES (\(appID), \(store.rawValue), \(name), \(stored.plaintext), \(stored.sealed?.combined),
                            \(stored.sealed?.keyID))
                        ON CONFLICT (app_id, store, name) DO UPDATE SET plaintext = EXCLUDED.plaintext,
                            sealed = EXCLUDED.sealed, key_id = EXCLUDED.key_id, updated_at = EXCLUDED.updated_at
                        """)
                }
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
            try storedApps(
                connection.query("SELECT \(Self.appColumns) FROM apps WHERE bundle_id = \(bundleID)"), on: connection
            ).first
        }
    }

    /// The stored app sold on Google Play as `packageName`, or `nil`.
    public func app(googlePlayPackage packageName: String) async throws -> StoredApp? {
        try await pool.withConnection { connection in
            try storedApps(
                connection.query(
                    "SELECT \(Self.appColumns) FROM apps WHERE google_play_package_name = \(packageName)"),
                on: connection
            ).first
        }
    }

    /// Every stored app holding each of `store`'s secrets `names` (an app selling in that store), by bundle id.
    public func apps(holding store: Store, secrets names: [String]) async throws -> [StoredApp] {
        try await pool.withConnection { connection in
            try storedApps(
                connection.query(
                    """
                    SELECT \(Self.appColumns) FROM apps
                    WHERE (SELECT count(*) FROM app_store_secrets s
                           WHERE s.app_id = apps.app_id AND s.store = \(store.rawValue)
                             AND s.name = ANY (string_to_array(\(names.joined(separator: ","))::text, ',')))
                        = \(Int64(Set(names).count))
                    ORDER BY bundle_id
                    """), on: connection)
        }
    }

    /// Every stored app.
    public func apps() async throws -> [StoredApp] {
        try await pool.withConnection { connection in
            try storedApps(connection.query("SELECT \(Self.appColumns) FROM apps ORDER BY bundle_id"), on: connection)
        }
    }

    static let appColumns: PostgresQuery = """
        app_id, catalog::text, bundle_id, server_api_issuer_id, server_api_key_id, \
        shared_secret, shared_secret_sealed, shared_secret_key_id, \
        server_api_private_key, server_api_private_key_sealed, server_api_private_key_key_id, \
        EXISTS (SELECT FROM pg_extension WHERE extname = 'citus')
        """

    /// The apps of `rows` (`appColumns`), each with its store secrets, read in one more statement on `connection`.
    func storedApps(_ rows: PostgresRows, on connection: PostgresConnection) throws -> [StoredApp] {
        let apps = try rows.map { row in (row: row, id: try row.decode(Int64.self, at: 0)) }
        guard !apps.isEmpty else { return [] }
        var secrets: [Int64: StoreSecrets] = [:]
        let stored = try connection.query(
            """
            SELECT s.app_id, a.bundle_id, s.store, s.name, s.plaintext, s.sealed, s.key_id
            FROM app_store_secrets s JOIN apps a ON a.app_id = s.app_id
            WHERE s.app_id = ANY (string_to_array(\(apps.map { String($0.id) }.joined(separator: ","))::text, ',')::bigint[])
            """)
        for row in stored {
            // A secret of a store this build does not sell in is kept, and unused.
            guard let store = Store(rawValue: try row.decode(String.self, at: 2)) else { continue }
            let name = try row.decode(String.self, at: 3)
            let appID = try row.decode(Int64.self, at: 0)
            let purpose = SecretPurpose(.storeSecret(store, name), bundleID: try row.decode(String.self, at: 1))
            secrets[appID, default: StoreSecrets()][store, name] = try StoredSecret(row, at: 4)?.open(
                for: purpose, with: secretKeys)
        }
        return try apps.map { try storedApp($0.row, storeSecrets: secrets[$0.id] ?? StoreSecrets()) }
    }

    func storedApp(_ row: PostgresRow, storeSecrets: StoreSecrets) throws -> StoredApp {
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
        var app = StoredApp(
            appID: try row.decode(Int64.self, at: 0),
            definition: try StoreJSON.decode(App.self, from: row.decode(String.self, at: 1), what: "app"),
            sharedSecret: sharedSecret,
            serverAPI: serverAPI,
            storeSecrets: storeSecrets,
            erasureKeys: erasureKeys)
        app.onCitus = try row.decode(Bool.self, at: 11)
        return app
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
        /// Each store secret given: its store, name and stored form.
        var stores: [(Store, String, StoredSecret)]
    }
}
