import PostgresLibPQ
import ServiceLifecycle
import SubLedgerTestSupport
import Testing

/// The pool as a swift-service-lifecycle `Service`: alive while its group runs, closed on graceful shutdown.
@Suite struct PostgresPoolServiceTests {
    @Test func gracefulShutdownFinishesRunningWorkThenClosesEveryConnection() async throws {
        var configuration = try TestDatabase.configuration(maxConnections: 2)
        let applicationName = TestDatabase.uniqueName("pool_service")
        configuration.parameters["application_name"] = applicationName
        let pool = PostgresPool(configuration: configuration, logger: TestDatabase.logger)
        let group = ServiceGroup(
            configuration: .init(services: [.init(service: pool)], logger: TestDatabase.logger))
        let running = Task { try await group.run() }

        // Two connections open while the group runs; one is busy when the shutdown begins.
        try await pool.query("SELECT 1")
        let inFlight = Task {
            try await pool.withConnection { connection in
                try connection.query("SELECT 1 AS one FROM pg_sleep(0.5)").single().decode(Int.self, at: 0)
            }
        }
        try await waitUntil { pool.statistics.inUse == 1 }
        try await pool.query("SELECT 2")
        #expect(try await serverConnections(named: applicationName) == 2)

        await group.triggerGracefulShutdown()
        try await running.value

        #expect(try await inFlight.value == 1)
        #expect(pool.statistics.openConnections == 0)
        #expect(try await serverConnections(named: applicationName) == 0)
        do {
            try await pool.query("SELECT 1")
            Issue.record("a pool shut down by its group should refuse work")
        } catch let error as PostgresError {
            #expect(error.kind == .poolClosed)
            #expect(error.description == "PostgresError.poolClosed: the connection pool is shut down")
        }
    }

    @Test func cancellingTheGroupAlsoClosesThePool() async throws {
        let pool = PostgresPool(
            configuration: try TestDatabase.configuration(maxConnections: 1), logger: TestDatabase.logger)
        let group = ServiceGroup(
            configuration: .init(services: [.init(service: pool)], logger: TestDatabase.logger))
        let running = Task { try await group.run() }
        try await pool.query("SELECT 1")
        #expect(pool.statistics.openConnections == 1)

        running.cancel()
        _ = try? await running.value

        #expect(pool.statistics.openConnections == 0)
        do {
            try await pool.query("SELECT 1")
            Issue.record("a closed pool should refuse work")
        } catch let error as PostgresError {
            #expect(error.kind == .poolClosed)
        }
    }

    /// Backends on the server whose `application_name` is `name`, counted from a connection of their own.
    private func serverConnections(named name: String) async throws -> Int {
        let admin = PostgresPool(configuration: try TestDatabase.configuration(maxConnections: 1))
        defer { admin.close() }
        let rows = try await admin.query(
            "SELECT count(*)::int8 FROM pg_stat_activity WHERE application_name = \(name)")
        return Int(try rows.single().decode(Int64.self, at: 0))
    }

    private func waitUntil(_ condition: () -> Bool) async throws {
        // A bound on waiting, not an assertion on time: it only ends a test that would otherwise hang.
        let deadline = ContinuousClock.now + .seconds(120)
        while !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("condition not reached within 120 s")
                return
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}
