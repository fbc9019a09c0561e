import CatalogFile
import Foundation
import LedgerTestSupport
import PostgresLibPQ
import SubLedgerCore
import SubLedgerTestSupport
import Testing

@testable import SubLedgerStore

/// Apps' secrets sealed at rest: what the table holds, who can open it, rotation, and the upgrade from
/// plaintext rows.
@Suite struct SecretsAtRestTests {
    static func keyring(_ keys: SecretKey...) throws -> SecretKeyring { try SecretKeyring(keys: keys) }

    /// A migrated schema with the catalog applied by a store holding `keys`.
    func withSecrets(
        _ keys: SecretKeyring, _ body: (CatalogStore, PostgresPool) async throws -> Void
    ) async throws {
        try await TestDatabase.withSchema(template: .ledger) { _, _, pool in
            try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
            let catalogStore = CatalogStore(pool: pool, secretKeys: keys)
            let (catalog, secrets) = try CatalogFile.read(SecretsFixture.catalogYAML)
            try await catalogStore.applyCatalog(catalog, secrets: secrets)
            try await body(catalogStore, pool)
        }
    }

    static func contains(_ haystack: [UInt8], _ needle: String) -> Bool {
        let needle = Array(needle.utf8)
        guard haystack.count >= needle.count else { return false }
        return (0...(haystack.count - needle.count)).contains { Array(haystack[$0..<$0 + needle.count]) == needle }
    }

    // MARK: Sealing

    @Test func catalogApplyStoresSecretsSealedNotInPlaintext() async throws {
        let key = SecretKey.generate()
        try await withSecrets(try Self.keyring(key)) { catalogStore, pool in
            let raw = try await SecretsFixture.rawColumns(pool)
            #expect(raw.sharedSecret == nil)
            #expect(raw.pem == nil)
            let sharedSealed = try #require(raw.sharedSealed)
            let pemSealed = try #require(raw.pemSealed)
            #expect(raw.sharedKeyID == key.id)
            #expect(raw.pemKeyID == key.id)
            #expect(!Self.contains(sharedSealed, "the-shared-secret"))
            #expect(!Self.contains(pemSealed, "PRIVATE KEY"))
            // Nothing else in the row carries them either.
            let text = try await pool.query(
                "SELECT apps::text FROM apps WHERE bundle_id = \(SecretsFixture.bundleID)"
            )
            .single()
            #expect(!(try text.decode(String.self, at: 0)).contains("the-shared-secret"))

            let app = try #require(try await catalogStore.app(bundleID: SecretsFixture.bundleID))
            #expect(app.sharedSecret == "the-shared-secret-0123456789abcdef")
            #expect(app.serverAPI?.privateKeyPEM == SecretsFixture.pem)
            #expect(app.serverAPI?.keyID == "2X9R4HXF34")
            // Printing the app never shows a secret.
            #expect(!"\(app)".contains("the-shared-secret"))
            #expect(!String(reflecting: app).contains("PRIVATE KEY"))
        }
    }

    @Test func theSameSecretSealsDifferentlyEachTime() throws {
        let keys = try Self.keyring(.generate())
        let purpose = SecretPurpose(.sharedSecret, bundleID: SecretsFixture.bundleID)
        let first = try keys.seal("s3cret", for: purpose)
        let second = try keys.seal("s3cret", for: purpose)
        #expect(first.combined != second.combined)
        #expect(try keys.open(first, for: purpose) == "s3cret")
        #expect(try keys.open(second, for: purpose) == "s3cret")
    }

    @Test func aSealedSecretOpensOnlyAsTheSecretItWasSealedAs() throws {
        let keys = try Self.keyring(.generate())
        let sealed = try keys.seal("s3cret", for: SecretPurpose(.sharedSecret, bundleID: SecretsFixture.bundleID))
        for purpose in [
            SecretPurpose(.sharedSecret, bundleID: SecretsFixture.otherBundleID),
            SecretPurpose(.serverAPIPrivateKey, bundleID: SecretsFixture.bundleID),
        ] {
            #expect(throws: SecretError.self) { try keys.open(sealed, for: purpose) }
            do {
                _ = try keys.open(sealed, for: purpose)
            } catch {
                #expect(error.code == .sealedSecretRejected)
                #expect(!error.description.contains("s3cret"))
            }
        }
    }

    @Test func anAlteredSealedSecretIsRefused() throws {
        let keys = try Self.keyring(.generate())
        let purpose = SecretPurpose(.sharedSecret, bundleID: SecretsFixture.bundleID)
        let sealed = try keys.seal("s3cret", for: purpose)
        for index in [0, 12, sealed.combined.count - 1] {  // nonce, ciphertext, tag
            var altered = sealed
            altered.combined[index] ^= 0x01
            #expect(
                performing: { try keys.open(altered, for: purpose) },
                throws: { ($0 as? SecretError)?.code == .sealedSecretRejected })
        }
        var truncated = sealed
        truncated.combined = Array(sealed.combined.prefix(10))
        #expect(
            performing: { try keys.open(truncated, for: purpose) },
            throws: { ($0 as? SecretError)?.code == .sealedSecretRejected })
    }

    @Test func aSealedSecretAlteredOrSwappedInTheTableIsRefused() async throws {
        try await withSecrets(try Self.keyring(.generate())) { catalogStore, pool in
            // One app's sealed shared secret copied onto the other app: it does not open there.
            try await pool.query(
                """
                UPDATE apps SET shared_secret_sealed = (SELECT shared_secret_sealed FROM apps WHERE bundle_id =
                    \(SecretsFixture.bundleID))
                WHERE bundle_id = \(SecretsFixture.otherBundleID)
                """)
            await #expect(
                performing: { try await catalogStore.app(bundleID: SecretsFixture.otherBundleID) },
                throws: {
                    ($0 as? SecretError)?.code == .sealedSecretRejected
                })
            // A flipped bit in the stored ciphertext.
            try await pool.query(
                """
                UPDATE apps SET shared_secret_sealed = set_byte(shared_secret_sealed, 20,
                    get_byte(shared_secret_sealed, 20) # 1)
                WHERE bundle_id = \(SecretsFixture.bundleID)
                """)
            await #expect(
                performing: { try await catalogStore.app(bundleID: SecretsFixture.bundleID) },
                throws: {
                    ($0 as? SecretError)?.code == .sealedSecretRejected
                })
        }
    }

    @Test func catalogApplyWithoutAKeyRefusesToStoreSecretsUnlessPlaintextIsAllowed() async throws {
        try await TestDatabase.withSchema(template: .ledger) { _, _, pool in
            try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
            let catalogStore = CatalogStore(pool: pool)
            let (catalog, secrets) = try CatalogFile.read(SecretsFixture.catalogYAML)
            await #expect(
                performing: { try await catalogStore.applyCatalog(catalog, secrets: secrets) },
                throws: {
                    ($0 as? SecretError)?.code == .noSecretKey && !"\($0)".contains("the-shared-secret")
                })
            #expect(try await pool.query("SELECT count(*) FROM apps").single().decode(Int64.self, at: 0) == 0)
            // A catalog without secrets needs no key.
            try await catalogStore.applyCatalog(catalog)
            #expect(try await catalogStore.app(bundleID: SecretsFixture.bundleID)?.sharedSecret == nil)
            // Explicitly allowed: stored unsealed, and read back.
            try await catalogStore.applyCatalog(catalog, secrets: secrets, allowingPlaintextSecrets: true)
            #expect(try await SecretsFixture.rawColumns(pool).sharedSecret == "the-shared-secret-0123456789abcdef")
            #expect(
                try await catalogStore.app(bundleID: SecretsFixture.bundleID)?.sharedSecret
                    == "the-shared-secret-0123456789abcdef")
            #expect(
                try await SecretStore(pool: pool, secretKeys: SecretKeyring(), logger: TestDatabase.logger).status()
                    .plaintext == 3)
        }
    }

    // MARK: Rotation

    @Test func rotationReSealsUnderTheNewKeyWhileOldSecretsOpenWithBothKeys() async throws {
        let old = SecretKey.generate()
        let new = SecretKey.generate()
        try await withSecrets(try Self.keyring(old)) { _, pool in
            let both = SecretStore(pool: pool, secretKeys: try Self.keyring(new, old), logger: TestDatabase.logger)
            let bothCatalog = CatalogStore(pool: pool, secretKeys: try Self.keyring(new, old))
            let onlyNew = SecretStore(pool: pool, secretKeys: try Self.keyring(new), logger: TestDatabase.logger)
            let onlyNewCatalog = CatalogStore(pool: pool, secretKeys: try Self.keyring(new))

            // Before rotation: both keys open the old ciphertexts; the new key alone fails cleanly.
            #expect(
                try await bothCatalog.app(bundleID: SecretsFixture.bundleID)?.sharedSecret
                    == "the-shared-secret-0123456789abcdef")
            await #expect(
                performing: { try await onlyNewCatalog.app(bundleID: SecretsFixture.bundleID) },
                throws: { error in
                    guard let error = error as? SecretError else { return false }
                    return error.code == .keyUnavailable && error.message.contains(old.id)
                })
            await #expect(
                performing: { try await onlyNew.checkKeys() },
                throws: {
                    ($0 as? SecretError)?.code == .keyUnavailable
                })
            #expect(try await both.status().sealedByKeyID == [old.id: 3])

            let resealing = try await both.reseal()
            #expect(resealing == SecretStore.Resealing(keyID: new.id, resealed: 3, sealedPlaintext: 0))
            let raw = try await SecretsFixture.rawColumns(pool)
            #expect(raw.sharedKeyID == new.id)
            #expect(raw.pemKeyID == new.id)
            #expect(try await both.status().sealedByKeyID == [new.id: 3])

            // After rotation the old key is no longer needed.
            try await onlyNew.checkKeys()
            let app = try #require(try await onlyNewCatalog.app(bundleID: SecretsFixture.bundleID))
            #expect(app.sharedSecret == "the-shared-secret-0123456789abcdef")
            #expect(app.serverAPI?.privateKeyPEM == SecretsFixture.pem)
            #expect(
                try await onlyNewCatalog.app(bundleID: SecretsFixture.otherBundleID)?.sharedSecret == "another-secret")
            // Rotating again changes nothing.
            #expect(
                try await both.reseal() == SecretStore.Resealing(keyID: new.id, resealed: 0, sealedPlaintext: 0))
        }
    }

    @Test func aRotationThatCannotOpenEverySecretChangesNothing() async throws {
        let old = SecretKey.generate()
        let new = SecretKey.generate()
        try await withSecrets(try Self.keyring(old)) { _, pool in
            let before = try await SecretsFixture.rawColumns(pool)
            let onlyNew = SecretStore(pool: pool, secretKeys: try Self.keyring(new), logger: TestDatabase.logger)
            await #expect(
                performing: { try await onlyNew.reseal() },
                throws: {
                    ($0 as? SecretError)?.code == .keyUnavailable
                })
            let after = try await SecretsFixture.rawColumns(pool)
            #expect(after.sharedSealed == before.sharedSealed)
            #expect(after.sharedKeyID == old.id)
        }
    }

    // MARK: Upgrade

    @Test func plaintextRowsFromBeforeTheUpgradeKeepWorkingAndRotationSealsThem() async throws {
        try await TestDatabase.withSchema { _, _, pool in
            // The database as the previous version left it: steps 1 and 2, secrets in plaintext columns.
            var script = try Migrator.bundled(logger: TestDatabase.logger).script
            let latest = script.steps
            script.steps = Array(latest.prefix { $0.name != "apps' secrets sealed at rest" })
            #expect(script.steps.count < latest.count)
            try await Migrator(script: script, logger: TestDatabase.logger).migrate(pool)
            let (catalog, _) = try CatalogFile.read(SecretsFixture.catalogYAML)
            let app = try #require(catalog.apps.first { $0.bundleID == SecretsFixture.bundleID })
            try await pool.query(
                """
                INSERT INTO apps (bundle_id, environments, shared_secret, catalog, server_api_issuer_id,
                    server_api_key_id,
                    server_api_private_key)
                VALUES (\(SecretsFixture.bundleID), ARRAY['Production', 'Sandbox'], 'old-plain-secret',
                    \(try StoreJSON.encode(app))::jsonb, 'issuer', 'KEYID', \(SecretsFixture.pem))
                """)

            try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
            // Without a key the plaintext rows are read as before.
            let keyless = SecretStore(pool: pool, secretKeys: SecretKeyring(), logger: TestDatabase.logger)
            let keylessCatalog = CatalogStore(pool: pool)
            #expect(try await keylessCatalog.app(bundleID: SecretsFixture.bundleID)?.sharedSecret == "old-plain-secret")
            #expect(try await keyless.checkKeys().plaintext == 2)
            await #expect(
                performing: { try await keyless.reseal() },
                throws: {
                    ($0 as? SecretError)?.code == .noSecretKey
                })

            let key = SecretKey.generate()
            let secretStore = SecretStore(pool: pool, secretKeys: try Self.keyring(key), logger: TestDatabase.logger)
            let catalogStore = CatalogStore(pool: pool, secretKeys: try Self.keyring(key))
            #expect(
                try await catalogStore.app(bundleID: SecretsFixture.bundleID)?.serverAPI?.privateKeyPEM
                    == SecretsFixture.pem)
            #expect(
                try await secretStore.reseal() == SecretStore.Resealing(keyID: key.id, resealed: 0, sealedPlaintext: 2)
            )
            let raw = try await SecretsFixture.rawColumns(pool)
            #expect(raw.sharedSecret == nil)
            #expect(raw.pem == nil)
            #expect(raw.sharedKeyID == key.id)
            let sealed = try #require(try await catalogStore.app(bundleID: SecretsFixture.bundleID))
            #expect(sealed.sharedSecret == "old-plain-secret")
            #expect(
                sealed.serverAPI
                    == ServerAPICredentials(issuerID: "issuer", keyID: "KEYID", privateKeyPEM: SecretsFixture.pem))
            #expect(
                try await secretStore.status() == .init(sealedByKeyID: [key.id: 2], plaintext: 0, missingKeyIDs: []))
        }
    }

    @Test func aCatalogWithoutSecretsKeepsTheSealedOnes() async throws {
        let key = SecretKey.generate()
        try await withSecrets(try Self.keyring(key)) { catalogStore, pool in
            let before = try await SecretsFixture.rawColumns(pool)
            let (catalog, _) = try CatalogFile.read(SecretsFixture.catalogYAML)
            try await catalogStore.applyCatalog(catalog)
            #expect(try await SecretsFixture.rawColumns(pool).sharedSealed == before.sharedSealed)
            #expect(
                try await catalogStore.app(bundleID: SecretsFixture.bundleID)?.serverAPI?.privateKeyPEM
                    == SecretsFixture.pem)
        }
    }

    // MARK: Keys

    @Test func aKeyFileHoldsKeysNewestFirstWithComments() throws {
        let new = SecretKey.generate()
        let old = SecretKey.generate()
        let keyring = try SecretKeyring.parse("# rotated 2026-11\n\(new.base64)\n\n  \(old.base64)  \n", source: "keys")
        #expect(keyring.keys.map(\.id) == [new.id, old.id])
        #expect(keyring.current?.id == new.id)
        #expect(
            try SecretKeyring.parse("\(new.base64),\(old.base64)", source: "env").keys.map(\.id) == [new.id, old.id])
        // The id is a fingerprint: the same key gives the same id, and it says nothing about the key.
        #expect(try SecretKey(base64: new.base64).id == new.id)
        #expect(new.id.count == 16)
        #expect(!"\(keyring)".contains(new.base64))
    }

    @Test(arguments: [
        ("", SecretError.Code.noKeyInSource),
        ("# only a comment\n", .noKeyInSource),
        ("c2hvcnQ=", .malformedKey),  // "short": 5 bytes
        (Data(count: 16).base64EncodedString(), .malformedKey),  // 128 bits
        (Data(count: 33).base64EncodedString(), .malformedKey),
        ("not base64 at all!", .malformedKey),
        ("keyid:" + Data(count: 32).base64EncodedString(), .malformedKey),
    ])
    func aMalformedKeySourceIsRefusedWithoutQuotingIt(text: String, code: SecretError.Code) {
        #expect(
            performing: { try SecretKeyring.parse(text, source: "secret.key") },
            throws: { error in
                guard let error = error as? SecretError else { return false }
                return error.code == code && error.message.contains("secret.key")
                    && (text.isEmpty || !error.message.contains(text))
            })
    }

    @Test func theSameKeyTwiceIsRefused() {
        let key = SecretKey.generate()
        #expect(
            performing: { try SecretKeyring.parse("\(key.base64)\n\(key.base64)", source: "f") },
            throws: {
                ($0 as? SecretError)?.code == .malformedKey
            })
    }

    @Test func theQuickStartKeyFileIsCreatedOncePrivately() throws {
        let directory = NSTemporaryDirectory() + "subledger-secret-\(UUID().uuidString)/data"
        defer { try? FileManager.default.removeItem(atPath: (directory as NSString).deletingLastPathComponent) }
        let path = directory + "/secret.key"
        let created = try SecretKeyFile.readOrCreate(path)
        #expect(created.created)
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o600)
        let again = try SecretKeyFile.readOrCreate(path)
        #expect(!again.created)
        #expect(again.keyring.current?.id == created.keyring.current?.id)
        #expect(try SecretKeyFile.read(path).current?.id == created.keyring.current?.id)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory) == ["secret.key"])
    }

    @Test func aMissingKeyFileIsAnError() {
        #expect(
            performing: { try SecretKeyFile.read("/nonexistent/secret.key") },
            throws: {
                ($0 as? SecretError)?.code == .unreadableKeyFile
            })
    }
}
