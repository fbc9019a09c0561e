import CatalogFile
import LedgerTestSupport
import PostgresLibPQ
import SubLedgerHTTP
import SubLedgerStore
import SubLedgerTestSupport
import SubLedgerUseCases
import Testing

/// The checks every command makes before it uses the ledger: the ones `serve` makes, in one place.
@Suite struct DatabaseReadinessTests {
    static let catalogYAML = """
        apps:
          - bundle_id: com.example.readiness
            apple_app_id: 1999999999
            environments: [production, sandbox]
            shared_secret: the-shared-secret-0123456789abcdef
            products:
              - { product_id: coins.100, type: consumable, credits: 100 }
        """

    static func store(_ pool: PostgresPool, _ keys: SecretKeyring) -> SecretStore {
        SecretStore(pool: pool, secretKeys: keys, logger: TestDatabase.logger)
    }

    @Test func aDatabaseWhoseSchemaIsNotCurrentIsRefused() async throws {
        try await TestDatabase.withSchema { _, _, pool in
            let migrator = try Migrator.bundled(logger: TestDatabase.logger)
            await #expect(throws: ConfigurationError.self) {
                try await DatabaseReadiness.check(Self.store(pool, SecretKeyring()), pooler: .none, migrator: migrator)
            }
            try await migrator.migrate(pool)
            try await DatabaseReadiness.check(Self.store(pool, SecretKeyring()), pooler: .none, migrator: migrator)
        }
    }

    @Test func storedSecretsSealedWithAKeyThatIsNotConfiguredAreRefused() async throws {
        try await TestDatabase.withSchema(template: .ledger) { _, _, pool in
            let migrator = try Migrator.bundled(logger: TestDatabase.logger)
            try await migrator.migrate(pool)
            let keys = try SecretKeyring(keys: [.generate()])
            let (catalog, secrets) = try CatalogFile.read(Self.catalogYAML)
            try await CatalogStore(pool: pool, secretKeys: keys).applyCatalog(catalog, secrets: secrets)

            try await DatabaseReadiness.check(Self.store(pool, keys), pooler: .none, migrator: migrator)
            let otherKeys = try SecretKeyring(keys: [.generate()])
            let refused = await #expect(throws: SecretError.self) {
                try await DatabaseReadiness.check(Self.store(pool, otherKeys), pooler: .none, migrator: migrator)
            }
            #expect(refused?.code == .keyUnavailable)
            // `subledger secrets` runs without the check of the keys, to say what is missing.
            try await DatabaseReadiness.check(
                Self.store(pool, otherKeys), pooler: .none, migrator: migrator, checkingSecretKeys: false)
        }
    }
}
