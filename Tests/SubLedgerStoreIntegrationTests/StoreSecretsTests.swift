import CatalogFile
import LedgerTestSupport
import PostgresLibPQ
import SubLedgerCore
import SubLedgerTestSupport
import Testing

@testable import SubLedgerStore

/// The stores' secrets of an app as rows by (store, name), `app_store_secrets` (step 57): the upgrade moves the
/// columns they were, sealed as they were, and `catalog apply`, the reads, the key status and the rotation all go
/// through the rows.
@Suite struct StoreSecretsTests {
    static let googleKey = #"{"type": "service_account", "private_key": "k", "client_email": "a@b.c"}"#

    /// Step 57 moves a sealed Stripe key and webhook secret and a plaintext Google key from `apps` to rows, the seals
    /// untouched: the key that sealed them opens them still, under the names the store modules read them by.
    @Test func theUpgradeMovesEachStoreSecretAsItWasSealed() async throws {
        try await TestDatabase.withSchema { _, _, pool in
            // On Citus (scripts/citus-test), the upgrade of a cluster distributed at step 56.
            let bundled = try await Migrator.bundled(before: 57, on: pool)
            let key = SecretKey.generate()
            let keys = try SecretKeyring(keys: [key])
            let bundleID = SecretsFixture.bundleID
            let (catalog, _) = try CatalogFile.read(SecretsFixture.catalogYAML)
            let app = try #require(catalog.apps.first { $0.bundleID == bundleID })
            let secretKey = try keys.seal(
                "sk_test_moved", for: SecretPurpose(.init(rawValue: "stripe_secret_key"), bundleID: bundleID))
            let webhookSecret = try keys.seal(
                "whsec_moved", for: SecretPurpose(.init(rawValue: "stripe_webhook_secret"), bundleID: bundleID))
            try await pool.query(
                """
                INSERT INTO apps (bundle_id, environments, catalog, google_service_account_key,
                    stripe_secret_key_sealed, stripe_secret_key_key_id,
                    stripe_webhook_secret_sealed, stripe_webhook_secret_key_id)
                VALUES (\(bundleID), ARRAY['Production', 'Sandbox'], \(try StoreJSON.encode(app))::jsonb,
                    \(Self.googleKey), \(secretKey.combined), \(secretKey.keyID), \(webhookSecret.combined),
                    \(webhookSecret.keyID))
                """)
            let other = try #require(catalog.apps.first { $0.bundleID == SecretsFixture.otherBundleID })
            try await pool.query(
                """
                INSERT INTO apps (bundle_id, catalog)
                VALUES (\(SecretsFixture.otherBundleID), \(try StoreJSON.encode(other))::jsonb)
                """)

            try await bundled.migrate(pool)
            let rows = try await pool.query(
                """
                SELECT s.store || '/' || s.name || ' ' || (s.plaintext IS NOT NULL) || ' ' || coalesce(s.key_id, '-')
                FROM app_store_secrets s JOIN apps a ON a.app_id = s.app_id
                ORDER BY a.bundle_id, s.store, s.name
                """
            ).map { try $0.decode(String.self, at: 0) }
            #expect(
                rows == [
                    "google_play/service_account_key true -", "stripe/secret_key false \(key.id)",
                    "stripe/webhook_secret false \(key.id)",
                ])
            let columns = try await pool.query(
                """
                SELECT count(*) FROM information_schema.columns
                WHERE table_schema = current_schema() AND table_name = 'apps'
                  AND (column_name LIKE 'stripe%' OR column_name LIKE 'google_service%')
                """
            ).single().decode(Int64.self, at: 0)
            #expect(columns == 0)

            let catalogStore = CatalogStore(pool: pool, secretKeys: keys)
            let stored = try #require(try await catalogStore.app(bundleID: bundleID))
            #expect(stored.storeSecrets[.stripe, "secret_key"] == "sk_test_moved")
            #expect(stored.storeSecrets[.stripe, "webhook_secret"] == "whsec_moved")
            #expect(stored.storeSecrets[.googlePlay, "service_account_key"] == Self.googleKey)
            #expect(!"\(stored)".contains("sk_test_moved"))
            #expect("\(stored.storeSecrets)".contains("stripe/secret_key"))
            #expect(
                try await catalogStore.apps(holding: .stripe, secrets: ["secret_key", "webhook_secret"]).map(
                    \.bundleID) == [bundleID])
            #expect(try await catalogStore.app(bundleID: SecretsFixture.otherBundleID)?.storeSecrets.isEmpty == true)

            // The key status counts the rows; rotation seals the plaintext one and re-seals nothing sealed already.
            let secrets = SecretStore(pool: pool, secretKeys: keys, logger: TestDatabase.logger)
            #expect(try await secrets.status() == .init(sealedByKeyID: [key.id: 2], plaintext: 1, missingKeyIDs: []))
            #expect(try await secrets.reseal() == .init(keyID: key.id, resealed: 0, sealedPlaintext: 1))
            #expect(try await secrets.status() == .init(sealedByKeyID: [key.id: 3], plaintext: 0, missingKeyIDs: []))
            #expect(
                try await catalogStore.app(bundleID: bundleID)?.storeSecrets[.googlePlay, "service_account_key"]
                    == Self.googleKey)

            // A new key: every row re-sealed under it, and the old key is no longer needed to open them.
            let newer = SecretKey.generate()
            let rotated = SecretStore(
                pool: pool, secretKeys: try SecretKeyring(keys: [newer, key]), logger: TestDatabase.logger)
            #expect(try await rotated.reseal() == .init(keyID: newer.id, resealed: 3, sealedPlaintext: 0))
            let onlyNewer = CatalogStore(pool: pool, secretKeys: try SecretKeyring(keys: [newer]))
            #expect(
                try await onlyNewer.app(bundleID: bundleID)?.storeSecrets[.stripe, "webhook_secret"] == "whsec_moved")
        }
    }

    /// A store secret given in a catalog replaces the stored one of its name; one not given is kept; a sealed row
    /// copied under another name or app does not open.
    @Test func aCatalogReplacesTheSecretsItGivesAndKeepsTheOthers() async throws {
        try await TestDatabase.withSchema(template: .ledger) { _, _, pool in
            try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
            let keys = try SecretKeyring(keys: [SecretKey.generate()])
            let catalogStore = CatalogStore(pool: pool, secretKeys: keys)
            let (catalog, _) = try CatalogFile.read(SecretsFixture.catalogYAML)
            var first = StoreSecrets()
            first[.stripe, "secret_key"] = "sk_test_first"
            first[.stripe, "webhook_secret"] = "whsec_first"
            first[.googlePlay, "service_account_key"] = Self.googleKey
            try await catalogStore.applyCatalog(
                catalog, secrets: [SecretsFixture.bundleID: AppSecrets(stores: first)])
            var second = StoreSecrets()
            second[.stripe, "secret_key"] = "sk_test_second"
            try await catalogStore.applyCatalog(
                catalog, secrets: [SecretsFixture.bundleID: AppSecrets(stores: second)])
            try await catalogStore.applyCatalog(catalog)

            let app = try #require(try await catalogStore.app(bundleID: SecretsFixture.bundleID))
            #expect(app.storeSecrets[.stripe, "secret_key"] == "sk_test_second")
            #expect(app.storeSecrets[.stripe, "webhook_secret"] == "whsec_first")
            #expect(app.storeSecrets[.googlePlay, "service_account_key"] == Self.googleKey)
            #expect(try await catalogStore.apps(holding: .stripe, secrets: ["secret_key", "missing"]).isEmpty)
            #expect(try await catalogStore.apps(holding: .googlePlay, secrets: ["service_account_key"]).count == 1)

            // The Stripe key's seal copied onto the webhook secret's row: it opens as nothing else.
            try await pool.query(
                """
                UPDATE app_store_secrets SET sealed = (SELECT sealed FROM app_store_secrets WHERE name = 'secret_key')
                WHERE name = 'webhook_secret'
                """)
            await #expect(throws: SecretError.self) {
                try await catalogStore.app(bundleID: SecretsFixture.bundleID)
            }
        }
    }
}
