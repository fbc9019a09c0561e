import Foundation
import PostgresLibPQ
import SubLedgerTestSupport
import Testing

/// `PostgresPool.query(_:completion:)`, the form for callers that are not tasks (an event loop's
/// channel handler): the lease is handed to a callback, the statement sent from the thread that got it, and the
/// reply read on the readiness thread.
@Suite struct StatementsWithoutATaskTests {
    static func positional(_ sql: String, _ values: any PostgresEncodable...) -> PostgresQuery {
        PostgresQuery(unsafeSQL: sql, parameters: values.map(\.postgresValue))
    }

    /// The callback's outcome, awaited by the test.
    static func query(_ pool: PostgresPool, _ query: PostgresQuery) async -> Result<PostgresRows, any Error> {
        await withCheckedContinuation { continuation in
            pool.query(query) { continuation.resume(returning: $0) }
        }
    }

    /// Most callers wait in the pool with a callback.
    @Test func manyCallersOnFewConnectionsEachGetTheirOwnRows() async throws {
        try await TestDatabase.withSchema(maxConnections: 3) { _, _, pool in
            try await ManyCallersScenario.run(on: pool) { try await Self.query(pool, $0).get() }
        }
    }

    @Test func serverErrorIsDeliveredAndTheConnectionServesTheNextStatement() async throws {
        try await TestDatabase.withSchema(maxConnections: 1) { _, _, pool in
            let statement = "SELECT 100 / $1::int AS quotient"
            let quarter = try await Self.query(pool, Self.positional(statement, Int64(4))).get().single()
            #expect(try quarter.decode(Int.self, at: 0) == 25)
            switch await Self.query(pool, Self.positional(statement, Int64(0))) {
            case .success: Issue.record("division by zero should fail")
            case .failure(let failure):
                #expect((failure as? PostgresError)?.sqlState?.rawValue == "22012")
            }
            let fifth = try await Self.query(pool, Self.positional(statement, Int64(5))).get().single()
            #expect(try fifth.decode(Int.self, at: 0) == 20)
            #expect(pool.statistics.connectionsOpened == 1)
            #expect(pool.statistics.inUse == 0)
        }
    }

    @Test func backendTerminatedMidStatementIsAConnectionErrorAndTheSlotIsReplaced() async throws {
        try await TestDatabase.withSchema(maxConnections: 1) { _, _, pool in
            let statement = "SELECT CASE WHEN $1::bool THEN pg_terminate_backend(pg_backend_pid()) END"
            _ = try await Self.query(pool, Self.positional(statement, false)).get()
            switch await Self.query(pool, Self.positional(statement, true)) {
            case .success: Issue.record("a statement whose backend terminates should fail")
            case .failure(let failure): #expect((failure as? PostgresError)?.isConnectionError == true)
            }
            #expect(try await Self.query(pool, Self.positional(statement, false)).get().count == 1)
            #expect(pool.statistics.openConnections == 1)
        }
    }

    @Test func aClosedPoolRefusesAtOnce() async throws {
        try await TestDatabase.withSchema(maxConnections: 1) { _, configuration, _ in
            let pool = PostgresPool(configuration: configuration)
            pool.close()
            switch await Self.query(pool, Self.positional("SELECT $1::int", Int64(1))) {
            case .success: Issue.record("a closed pool should refuse")
            case .failure(let failure): #expect((failure as? PostgresError)?.kind == .poolClosed)
            }
        }
    }

    @Test func aCallerWaitingPastTheAcquireTimeoutIsRefused() async throws {
        try await TestDatabase.withSchema(maxConnections: 1, acquireTimeout: .milliseconds(200)) { _, _, pool in
            // The only connection is held until the callback's wait has ended.
            let release = DispatchSemaphore(value: 0)
            let holding = Task { try await pool.withConnection { _ in release.wait() } }
            while pool.statistics.inUse == 0 { try await Task.sleep(for: .milliseconds(10)) }
            let outcome = await Self.query(pool, Self.positional("SELECT $1::int", Int64(1)))
            release.signal()
            switch outcome {
            case .success: Issue.record("the wait should end in a pool timeout")
            case .failure(let failure): #expect((failure as? PostgresError)?.kind == .poolTimeout)
            }
            try await holding.value
            #expect(try await Self.query(pool, Self.positional("SELECT $1::int", Int64(1))).get().count == 1)
        }
    }
}
