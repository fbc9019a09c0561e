import LedgerTestSupport
import SubLedgerStore
import SubLedgerTestSupport
import Testing

@testable import SubLedgerHTTP
@testable import SubLedgerUseCases

/// API keys kept in `APIKeyStore`: refusals as `APIKeyError`, revocation, lookup by the secret.
@Suite struct APIKeysTests {
    @Test func keysAreRefusedWithTheirTypedReasonAndNothingIsStored() async throws {
        try await TestDatabase.withSchema(maxConnections: 2, template: .ledger) { _, _, pool in
            try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
            let keys = APIKeys(store: APIKeyStore(pool: pool))
            await #expect(throws: APIKeyError.invalidKeyName) { try await keys.create(bundleID: nil, name: "   ") }
            await #expect(throws: APIKeyError.unknownApp(bundleID: "com.example.none")) {
                try await keys.create(bundleID: "com.example.none", name: "app key")
            }
            await #expect(throws: APIKeyError.invalidKeyID) { try await keys.revoke(keyID: "not-a-uuid") }
            #expect(try await keys.list().isEmpty)
        }
    }

    @Test func aRevokedKeyNoLongerAuthenticates() async throws {
        try await TestDatabase.withSchema(maxConnections: 2, template: .ledger) { _, _, pool in
            try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
            let keys = APIKeys(store: APIKeyStore(pool: pool))
            let created = try await keys.create(bundleID: nil, name: " operations ")
            let found = try await keys.authenticate(created.secret)
            #expect(found?.keyID == created.keyID)
            #expect(found?.scope == .admin)
            #expect(try await keys.list().map(\.name) == ["operations"])
            #expect(try await keys.revoke(keyID: created.keyID))
            #expect(try await !keys.revoke(keyID: created.keyID))
            keys.invalidate()
            #expect(try await keys.authenticate(created.secret) == nil)
            #expect(try await keys.list().first?.revokedAt != nil)
        }
    }
}
