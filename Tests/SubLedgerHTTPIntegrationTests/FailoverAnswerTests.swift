import AppStore
import AppStoreStore
import CatalogFile
import Foundation
import HTTPTypes
import HummingbirdTesting
import LedgerTestSupport
import PostgresLibPQ
import SubLedgerCore
import SubLedgerHTTP
import SubLedgerStore
import SubLedgerTestSupport
import SubLedgerUseCases
import Synchronization
import Testing

/// What a client sees while the database fails over: never a 500, always a 503 with `Retry-After`.
@Suite struct FailoverAnswerTests {
    typealias H = ServiceHarness

    /// A write that reaches a server taking no writes (a standby, a primary being demoted: here a session with
    /// `default_transaction_read_only`, which fails the same way, SQLSTATE 25006) is a 503 the client retries,
    /// not a 500; reads still answer.
    @Test func aWriteRefusedAsReadOnlyIsA503WithRetryAfter() async throws {
        try await TestDatabase.withSchema(maxConnections: 4, template: .ledger) { schema, writable, pool in
            let migrator = try Migrator.bundled(logger: TestDatabase.logger)
            try await migrator.migrate(pool)
            let store = LedgerStore(pool: pool)
            let catalogStore = CatalogStore(pool: pool)
            let (catalog, _) = try CatalogFile.read(H.catalogYAML)
            try await catalogStore.applyCatalog(catalog, secrets: [:])
            let key = try await APIKeys(store: APIKeyStore(pool: pool)).create(bundleID: H.appOne, name: "one").secret
            let chain = try SigningChain.generate(
                notValidBefore: Instant(millisecondsSince1970: 1_600_000_000_000),
                notValidAfter: Instant(millisecondsSince1970: 2_000_000_000_000))

            var readOnly = writable
            readOnly.parameters["options"] = "-c search_path=\(schema) -c default_transaction_read_only=on"
            let standbyLike = PostgresPool(configuration: readOnly, logger: TestDatabase.logger)
            let gateway = try AppleGateway(
                configuration: AppleConfiguration(trustAppleRoot: false, timeout: .seconds(2)),
                additionalRoots: [chain.trustedRoot], logger: TestDatabase.logger)
            let dependencies = ServiceDependencies(
                pool: standbyLike, migrator: migrator, apple: gateway, now: { H.start })
            let app = buildApplication(
                configuration: ServiceConfiguration(host: "127.0.0.1", port: 0), dependencies: dependencies,
                logger: TestDatabase.logger)
            let harness = ServiceHarness(
                pool: standbyLike, store: store, catalog: catalogStore, clock: TestClock(H.start),
                signer: JWSSigner(chain: chain),
                keyOne: key, keyTwo: "", keys: APIKeys(store: APIKeyStore(pool: pool)))
            try await app.test(.live) { client in
                let signed = try harness.signedTransaction(id: "7000", purchasedOnDay: 0, expiresOnDay: 30)
                let write = try await client.call(
                    .post, "/v1/transactions", key: key, json: ["account_id": "dave", "signed_transaction": signed])
                #expect(write.status == .serviceUnavailable)
                #expect(write.json.errorCode == "database_unavailable")
                #expect(write.headers[.retryAfter] == "5")
                let renewal = try harness.notificationBody(
                    type: "DID_RENEW", transaction: signed,
                    renewal: try harness.signedRenewal(original: "7000", willAutoRenew: true, onDay: 0), onDay: 0)
                let notification = try await client.call(.post, "/v1/notifications/appstore", key: nil, raw: renewal)
                #expect(notification.status == .serviceUnavailable)
                #expect(notification.headers[.retryAfter] == "5")
                let read = try await client.call(.get, "/v1/accounts/dave/entitlements", key: key)
                #expect(read.status == .ok)
            }
            await standbyLike.shutdown()
        }
    }

    /// A database that cannot be reached (the primary died, the standby is not promoted yet) is a 503 with
    /// `Retry-After`, and the same process answers 200 once the database is reachable again: the pool opens
    /// a new connection on the next request, with no restart.
    @Test func anUnreachableDatabaseIsA503AndTheServiceRecoversByItself() async throws {
        try await TestDatabase.withSchema(maxConnections: 4, template: .ledger) { _, writable, pool in
            let migrator = try Migrator.bundled(logger: TestDatabase.logger)
            try await migrator.migrate(pool)
            let catalogStore = CatalogStore(pool: pool)
            let (catalog, _) = try CatalogFile.read(H.catalogYAML)
            try await catalogStore.applyCatalog(catalog, secrets: [:])
            let key = try await APIKeys(store: APIKeyStore(pool: pool)).create(bundleID: H.appOne, name: "one").secret

            // The service reaches PostgreSQL through a socket directory that is empty at first (the outage) and
            // later gets a link to the real socket (the new primary answers).
            let socketDirectory = try #require(writable.host, "the test database must be reached over a Unix socket")
            let socketName = ".s.PGSQL.\(writable.port ?? "5432")"
            let outage = FileManager.default.temporaryDirectory.appendingPathComponent(
                TestDatabase.uniqueName("outage")
            ).path
            try FileManager.default.createDirectory(atPath: outage, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: outage) }
            var configuration = writable
            configuration.parameters["host"] = outage
            configuration.parameters["connect_timeout"] = "2"
            configuration.acquireTimeout = .seconds(3)
            let failingOver = PostgresPool(configuration: configuration, logger: TestDatabase.logger)
            let gateway = try AppleGateway(
                configuration: AppleConfiguration(trustAppleRoot: true, timeout: .seconds(2)),
                logger: TestDatabase.logger)
            let dependencies = ServiceDependencies(
                pool: failingOver, migrator: migrator, apple: gateway, now: { H.start })
            let app = buildApplication(
                configuration: ServiceConfiguration(host: "127.0.0.1", port: 0), dependencies: dependencies,
                logger: TestDatabase.logger)
            try await app.test(.live) { client in
                let down = try await client.call(.get, "/v1/accounts/erin/entitlements", key: key)
                #expect(down.status == .serviceUnavailable)
                #expect(down.json.errorCode == "database_unavailable")
                #expect(down.headers[.retryAfter] == "5")

                try FileManager.default.createSymbolicLink(
                    atPath: outage + "/" + socketName, withDestinationPath: socketDirectory + "/" + socketName)
                let back = try await client.call(.get, "/v1/accounts/erin/entitlements", key: key)
                #expect(back.status == .ok)
                #expect(back.json.entitlementIDs.isEmpty)
            }
            await failingOver.shutdown()
        }
    }
    /// A database that blocks every read (a table lock the read model waits for): the reads that find no free
    /// connection wait for the pool's deadline and answer 503 with `Retry-After`, never a 500 and never a hang;
    /// `/health/live` keeps answering meanwhile; once the lock is gone the reads that held the connections finish
    /// with 200 and a new read answers 200 at once.
    @Test func aDatabaseBlockingEveryReadAnswers503WithRetryAfterAndLiveKeepsAnswering() async throws {
        try await TestDatabase.withSchema(maxConnections: 4, template: .ledger) { _, configuration, pool in
            let migrator = try Migrator.bundled(logger: TestDatabase.logger)
            try await migrator.migrate(pool)
            let catalogStore = CatalogStore(pool: pool)
            let (catalog, _) = try CatalogFile.read(H.catalogYAML)
            try await catalogStore.applyCatalog(catalog, secrets: [:])
            let key = try await APIKeys(store: APIKeyStore(pool: pool)).create(bundleID: H.appOne, name: "one").secret

            let connections = 2
            var serviceConfiguration = configuration
            serviceConfiguration.maxConnections = connections
            serviceConfiguration.acquireTimeout = .milliseconds(500)
            let service = PostgresPool(configuration: serviceConfiguration, logger: TestDatabase.logger)
            let gateway = try AppleGateway(
                configuration: AppleConfiguration(trustAppleRoot: true, timeout: .seconds(2)),
                logger: TestDatabase.logger)
            let dependencies = ServiceDependencies(pool: service, migrator: migrator, apple: gateway, now: { H.start })
            let app = buildApplication(
                configuration: ServiceConfiguration(host: "127.0.0.1", port: 0), dependencies: dependencies,
                logger: TestDatabase.logger)
            let read = "/v1/accounts/erin/entitlements"
            try await app.test(.live) { client in
                // Both of the service's connections open and the key is known before the lock.
                for _ in 0..<connections { #expect(try await client.call(.get, read, key: key).status == .ok) }

                let release = Mutex(false)
                let locked = Mutex(false)
                let lock = Task {
                    try await pool.transaction { connection in
                        try connection.execute(
                            script: "LOCK TABLE account_entitlement_periods IN ACCESS EXCLUSIVE MODE")
                        locked.withLock { $0 = true }
                        while !release.withLock({ $0 }) { Thread.sleep(forTimeInterval: 0.005) }
                    }
                }
                defer { release.withLock { $0 = true } }
                while !locked.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(5)) }

                // Each read on a connection of its own, so that they reach the service at once.
                let readers = connections + 4
                let answers = Answers()
                let clients = try (0..<readers).map { _ in try TestClient.patient(reaching: client) }
                let reads = clients.map { reader in
                    Task {
                        let answer = try await reader.call(.get, read, key: key)
                        answers.append(
                            Answer(
                                status: answer.status, retryAfter: answer.headers[.retryAfter],
                                code: answer.json.errorCode))
                    }
                }
                // The reads past the pool's connections answer while the lock is still held. The loop's bound
                // keeps a hang from lasting forever; it does not measure anything.
                for _ in 0..<12_000 where answers.count < readers - connections {
                    try await Task.sleep(for: .milliseconds(10))
                }
                let whileLocked = answers.all
                try #require(
                    whileLocked.count == readers - connections,
                    "\(whileLocked.count) of \(readers - connections) reads answered while the lock was held")
                for answer in whileLocked {
                    #expect(answer.status == .serviceUnavailable)
                    #expect(answer.retryAfter == "5")
                    #expect(answer.code == "database_unavailable")
                }
                #expect(try await client.call(.get, "/health/live", key: nil).status == .ok)

                release.withLock { $0 = true }
                try await lock.value
                for task in reads { try await task.value }
                let afterwards = answers.all.dropFirst(readers - connections)
                #expect(afterwards.map(\.status) == Array(repeating: HTTPResponse.Status.ok, count: connections))
                #expect(try await client.call(.get, read, key: key).status == .ok)
                for reader in clients { try? await reader.shutdown() }
            }
            await service.shutdown()
        }
    }
}

/// An answer to one of several concurrent reads.
private struct Answer: Sendable {
    var status: HTTPResponse.Status
    var retryAfter: String?
    var code: String?
}

/// The answers of concurrent reads, in the order they arrived.
private final class Answers: Sendable {
    private let answers = Mutex<[Answer]>([])

    var count: Int { answers.withLock { $0.count } }
    var all: [Answer] { answers.withLock { $0 } }

    func append(_ answer: Answer) { answers.withLock { $0.append(answer) } }
}
