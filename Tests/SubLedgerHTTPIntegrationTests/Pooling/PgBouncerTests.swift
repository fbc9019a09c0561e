import AppStore
import AppStoreStore
import CatalogFile
import Foundation
import HummingbirdTesting
import Logging
import PostgresLibPQ
import SubLedgerComposition
import SubLedgerCore
import SubLedgerHTTP
import SubLedgerStore
import SubLedgerTestSupport
import SubLedgerUseCases
import Testing

/// SubLedger behind a real PgBouncer in transaction mode (two server connections shared by every client
/// connection): with `SUBLEDGER_DATABASE_POOLER=pgbouncer-transaction` it ingests and reads through it, with
/// LISTEN and migrations on the direct connection; otherwise it refuses at start and says what to set.
@Suite struct PgBouncerTests {
    typealias H = ServiceHarness

    @Test func serviceIngestsAndReadsThroughPgBouncerInTransactionMode() async throws {
        try await PgBouncer.run { bouncer in
            let opened = try await DatabaseBootstrap.open(
                url: bouncer.pooledURL, dataDirectory: "", poolSize: 8, pooler: .pgbouncerTransaction,
                directURL: bouncer.directURL, logger: TestDatabase.logger)
            do {
                try await opened.pooler.check(opened.pool)
                let migrator = try Migrator.bundled(logger: TestDatabase.logger)
                try await migrator.migrate(try opened.sessionPool(for: "migrate"))
                let secretKeys = try SecretKeyring(keys: [SecretKey.generate()])
                let store = LedgerStore(pool: opened.pool)
                let catalogStore = CatalogStore(pool: opened.pool, secretKeys: secretKeys)
                let (catalog, secrets) = try CatalogFile.read(H.catalogYAML)
                try await catalogStore.applyCatalog(catalog, secrets: secrets)
                // Another process's view of the keys: the service's cache learns of a revocation only by NOTIFY.
                let keys = APIKeys(store: APIKeyStore(pool: opened.pool))
                let keyOne = try await keys.create(bundleID: H.appOne, name: "one")
                let chain = try SigningChain.generate(
                    notValidBefore: Instant(millisecondsSince1970: 1_600_000_000_000),
                    notValidAfter: Instant(millisecondsSince1970: 2_000_000_000_000))
                let clock = TestClock(H.start)
                let gateway = try AppleGateway(
                    configuration: AppleConfiguration(trustAppleRoot: false, timeout: .seconds(2)),
                    additionalRoots: [chain.trustedRoot], logger: TestDatabase.logger)
                var dependencies = ServiceDependencies(
                    pool: opened.pool, migrator: migrator, apple: gateway, now: { clock.now })
                dependencies.listenPool = try opened.sessionPool(for: "LISTEN")
                let harness = ServiceHarness(
                    pool: opened.pool, store: store, catalog: catalogStore, clock: clock,
                    signer: JWSSigner(chain: chain),
                    keyOne: keyOne.secret, keyTwo: "", keys: keys)
                var configuration = ServiceConfiguration(host: "127.0.0.1", port: 0)
                configuration.secretKeys = secretKeys
                let app = buildApplication(
                    configuration: configuration, dependencies: dependencies, logger: TestDatabase.logger)
                try await app.test(.live) { client in
                    // 24 purchases at once over 8 client connections and PgBouncer's 2 server connections:
                    // every statement of the apply transaction crosses server connections between transactions.
                    // They queue for the two server connections by design: a client that waits as long as that takes.
                    let patient = try TestClient.patient(reaching: client)
                    let statuses = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
                        for index in 0..<24 {
                            let signed = try harness.signedTransaction(
                                id: String(5000 + index), purchasedOnDay: 0, expiresOnDay: 30)
                            group.addTask {
                                let answer = try await patient.call(
                                    .post, "/v1/transactions", key: keyOne.secret,
                                    json: ["account_id": "pooled-\(index)", "signed_transaction": signed])
                                return (Int(answer.status.code), answer.json.results[String(5000 + index)])
                            }
                        }
                        var all: [(Int, String?)] = []
                        for try await status in group { all.append(status) }
                        return all
                    }
                    try await patient.shutdown()
                    #expect(statuses.count == 24)
                    #expect(statuses.allSatisfy { $0.0 == 200 && $0.1 == "applied" })

                    for index in [0, 7, 23] {
                        let read = try await client.call(
                            .get, "/v1/accounts/pooled-\(index)/entitlements", key: keyOne.secret)
                        #expect(read.status == .ok)
                        #expect(read.json.entitlementIDs == ["pro"])
                    }

                    clock.set(H.day(30))
                    let renewal = try harness.notificationBody(
                        type: "DID_RENEW",
                        transaction: try harness.signedTransaction(
                            id: "5100", original: "5000", purchasedOnDay: 30, expiresOnDay: 60),
                        renewal: try harness.signedRenewal(original: "5000", willAutoRenew: true, onDay: 30), onDay: 30)
                    let notified = try await client.call(.post, "/v1/notifications/appstore", key: nil, raw: renewal)
                    #expect(notified.status == .ok)
                    #expect(notified.json["status"] as? String == "applied")

                    let renewed = try await client.call(.get, "/v1/accounts/pooled-0/entitlements", key: keyOne.secret)
                    #expect(renewed.json.firstExpiry == "2025-03-02T00:00:00.000Z")

                    // LISTEN on the direct connection: the revocation reaches the service's key cache.
                    #expect(
                        try await client.call(.get, "/v1/accounts/pooled-0/entitlements", key: keyOne.secret).status
                            == .ok)
                    #expect(try await keys.revoke(keyID: keyOne.keyID))
                    var refused = false
                    for _ in 0..<100 where !refused {
                        let answer = try await client.call(
                            .get, "/v1/accounts/pooled-0/entitlements", key: keyOne.secret)
                        refused = answer.status == .unauthorized
                        if !refused { try await Task.sleep(for: .milliseconds(100)) }
                    }
                    #expect(refused)
                }
                let rows = try await opened.pool.query("SELECT count(*) FROM transactions").single().decode(
                    Int64.self, at: 0)
                #expect(rows == 25)
                await opened.close()
            } catch {
                await opened.close()
                throw error
            }
        }
    }

    @Test func anUndeclaredPgBouncerIsRefusedWithWhatToSet() async throws {
        try await PgBouncer.run { bouncer in
            let opened = try await DatabaseBootstrap.open(
                url: bouncer.pooledURL, dataDirectory: "", poolSize: 2, logger: TestDatabase.logger)
            let error = await #expect(throws: DatabasePoolerError.self) { try await opened.pooler.check(opened.pool) }
            #expect(error?.code == .undeclaredPooler)
            #expect(error?.message.contains("SUBLEDGER_DATABASE_POOLER=pgbouncer-transaction") == true)
            await opened.close()
        }
    }

    @Test func aDirectConnectionIsNotMistakenForAPooler() async throws {
        try await PgBouncer.run { bouncer in
            let opened = try await DatabaseBootstrap.open(
                url: bouncer.directURL, dataDirectory: "", poolSize: 2, logger: TestDatabase.logger)
            try await opened.pooler.check(opened.pool)
            #expect(try opened.sessionPool(for: "migrate") === opened.pool)
            await opened.close()
        }
    }

    @Test func serveRefusesToStartBehindATransactionPoolerWithoutADirectConnection() async throws {
        try await PgBouncer.run { bouncer in
            let opened = try await DatabaseBootstrap.open(
                url: bouncer.pooledURL, dataDirectory: "", poolSize: 2, pooler: .pgbouncerTransaction,
                logger: TestDatabase.logger)
            let error = #expect(throws: DatabasePoolerError.self) { try opened.sessionPool(for: "migrate") }
            #expect(error?.code == .directConnectionRequired)
            #expect(error?.message.contains("SUBLEDGER_DIRECT_DATABASE_URL") == true)
            await opened.close()

            var configuration = ServiceConfiguration(host: "127.0.0.1", port: 0, databaseURL: bouncer.pooledURL)
            configuration.databasePooler = .pgbouncerTransaction
            configuration.logLevel = .critical
            let refusal = await #expect(throws: DatabasePoolerError.self) {
                try await SubLedgerServer.run(configuration: configuration)
            }
            #expect(refusal?.code == .directConnectionRequired)
        }
    }

    @Test func serverDefaultsThatDecodingCannotReadAreRefusedBehindATransactionPooler() async throws {
        try await PgBouncer.run(prepare: { direct in
            try await direct.execute(
                script: "ALTER DATABASE \(try await Self.currentDatabase(direct)) SET bytea_output = 'escape'")
        }) { bouncer in
            let opened = try await DatabaseBootstrap.open(
                url: bouncer.pooledURL, dataDirectory: "", poolSize: 2, pooler: .pgbouncerTransaction,
                directURL: bouncer.directURL, logger: TestDatabase.logger)
            let error = await #expect(throws: DatabasePoolerError.self) { try await opened.pooler.check(opened.pool) }
            #expect(error?.code == .sessionDefaults)
            #expect(error?.message.contains("bytea_output") == true)
            await opened.close()
        }
    }

    /// The setting's values, in any case; anything else is refused (the command names the known values).
    @Test func thePoolerSettingKnowsItsValuesAndNothingElse() {
        #expect(DatabasePooler(setting: "pgbouncer-transaction") == .pgbouncerTransaction)
        #expect(DatabasePooler(setting: "PgBouncer-Transaction") == .pgbouncerTransaction)
        #expect(DatabasePooler(setting: "none") == DatabasePooler.none)
        #expect(DatabasePooler(setting: "session") == nil)
        #expect(DatabasePooler(setting: "pgbouncer") == nil)
        #expect(DatabasePooler.pgbouncerTransaction.isTransactionPooled)
        #expect(!DatabasePooler.none.isTransactionPooled)
    }

    static func currentDatabase(_ pool: PostgresPool) async throws -> String {
        try await pool.query("SELECT current_database()").single().decode(String.self, at: 0)
    }
}
