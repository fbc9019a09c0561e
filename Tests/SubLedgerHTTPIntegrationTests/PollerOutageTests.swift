import AppStoreStore
import Foundation
import PostgresLibPQ
import SubLedgerCore
import SubLedgerHTTP
import SubLedgerStore
import SubLedgerTestSupport
import SubLedgerUseCases
import Synchronization
import Testing

/// `subledger poll` through a database outage (a failover, a restart): the job keeps cycling and picks the
/// work up once the database answers again, instead of exiting with the first connection error.
@Suite struct PollerOutageTests {
    typealias H = ServiceHarness

    @Test func pollerKeepsCyclingThroughAnOutageAndWorksOnceTheDatabaseIsBack() async throws {
        try await H.run { harness, _ in
            let app = try #require(try await harness.catalog.app(bundleID: H.appOne))
            try await PollerTests.seedChains(3, store: harness.store, app: app)
            harness.clock.set(H.day(29))

            // The poller reaches PostgreSQL through a socket directory that is empty at first (the outage) and
            // later gets a link to the real socket (the database is back).
            let schema = try await harness.pool.query("SELECT current_schema()").single().decode(String.self, at: 0)
            let test = try TestDatabase.configuration()
            let socketDirectory = try #require(test.host, "the test database must be reached over a Unix socket")
            let socketName = ".s.PGSQL.\(test.port ?? "5432")"
            let outage = FileManager.default.temporaryDirectory.appendingPathComponent(
                TestDatabase.uniqueName("outage")
            ).path
            try FileManager.default.createDirectory(atPath: outage, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(atPath: outage) }
            var configuration = test
            configuration.parameters["host"] = outage
            configuration.parameters["options"] = "-c search_path=\(schema)"
            configuration.parameters["connect_timeout"] = "2"
            configuration.acquireTimeout = .seconds(2)
            let pool = PostgresPool(configuration: configuration, logger: TestDatabase.logger)

            var poller = RenewalPoller.Configuration(worker: "outage")
            poller.interval = .milliseconds(100)
            poller.requestsPerSecond = 100_000
            // The queue (what a cycle starts with) goes through the outage; the apps are read as usual.
            let store = harness.store
            let gateway = try AppleGateway(configuration: .init(trustAppleRoot: true), logger: TestDatabase.logger)
            let checked = Mutex<Set<String>>([])
            let job = RenewalPoller(
                configuration: poller, queue: PollQueue(pool: pool), store: store, catalog: harness.catalog,
                ingestion: Ingestion(
                    store: store, catalog: harness.catalog, apple: gateway, logger: TestDatabase.logger,
                    now: { harness.clock.now }),
                refresher: .init { chain, _ in
                    _ = checked.withLock { $0.insert(chain.key.chainID) }
                    return nil
                },
                logger: TestDatabase.logger, now: { harness.clock.now })
            // nil while running, then "returned" or "threw …".
            let ended = Mutex<String?>(nil)
            let running = Task {
                do {
                    try await job.run()
                    ended.withLock { $0 = "returned" }
                } catch {
                    ended.withLock { $0 = "threw \(error)" }
                }
            }

            // Several cycles fail while the database is unreachable; the job is still running.
            try await Task.sleep(for: .milliseconds(800))
            #expect(ended.withLock { $0 } == nil, "the poller stopped at the outage")
            #expect(checked.withLock { $0.isEmpty })

            try FileManager.default.createSymbolicLink(
                atPath: outage + "/" + socketName, withDestinationPath: socketDirectory + "/" + socketName)
            for _ in 0..<300 where checked.withLock({ $0.count }) < 3 {
                try await Task.sleep(for: .milliseconds(100))
            }
            #expect(checked.withLock { $0 } == ["90", "91", "92"])

            running.cancel()
            await running.value
            #expect(ended.withLock { $0 } == "returned")
            await pool.shutdown()
        }
    }
}
