import Foundation
import PostgresLibPQ
import SubLedgerTestSupport
import Testing

/// `sql` with positional parameters (`$1…`) bound to `values`: these tests drive the prepared-statement cache with
/// statements written as the server sees them.
private func positional(_ sql: String, _ values: any PostgresEncodable...) -> PostgresQuery {
    PostgresQuery(unsafeSQL: sql, parameters: values.map(\.postgresValue))
}

/// `PostgresPool.query(_:)`: after the first use on a connection the statement
/// is sent from the calling task and its reply awaited on the readiness thread, not the connection's thread.
@Suite struct StatementsWithoutHandOffTests {
    @Test func manyTasksOnFewConnectionsEachGetTheirOwnRows() async throws {
        try await TestDatabase.withSchema(maxConnections: 3) { _, _, pool in
            try await ManyCallersScenario.run(on: pool) { try await pool.query($0) }
        }
    }

    @Test func manyRowsArriveComplete() async throws {
        try await TestDatabase.withSchema(maxConnections: 1) { _, _, pool in
            let statement = "SELECT n, md5(n::text) FROM generate_series(1, $1::int) AS n"
            _ = try await pool.query(positional(statement, Int64(1)))
            let rows = try await pool.query(positional(statement, Int64(50_000)))
            #expect(rows.count == 50_000)
            #expect(try rows.map { try $0.decode(Int64.self, at: 0) }.reduce(0, +) == 50_000 * 50_001 / 2)
        }
    }

    @Test func serverErrorIsThrownAndTheConnectionServesTheNextStatement() async throws {
        try await TestDatabase.withSchema(maxConnections: 1) { _, _, pool in
            let statement = "SELECT 100 / $1::int AS quotient"
            #expect(
                try await pool.query(positional(statement, Int64(4))).single().decode(Int.self, at: 0)
                    == 25)
            do {
                try await pool.query(positional(statement, Int64(0)))
                Issue.record("division by zero should fail")
            } catch let error as PostgresError {
                #expect(error.kind == .queryFailed)
                #expect(error.sqlState == SQLState(rawValue: "22012"))
            }
            #expect(
                try await pool.query(positional(statement, Int64(5))).single().decode(Int.self, at: 0)
                    == 20)
            #expect(pool.statistics.connectionsOpened == 1)
        }
    }

    @Test func terminatedBackendIsReplacedBeforeACachedStatementRuns() async throws {
        try await TestDatabase.withSchema(maxConnections: 1) { _, _, pool in
            let statement = "SELECT pg_backend_pid() + $1::int AS pid"
            let firstPID = try await pool.query(positional(statement, Int64(0))).single().decode(
                Int32.self, at: 0)
            let admin = PostgresPool(configuration: try TestDatabase.configuration(maxConnections: 1))
            _ = try await admin.query("SELECT pg_terminate_backend(\(firstPID), 5000)")
            await admin.shutdown()

            let secondPID = try await pool.query(positional(statement, Int64(0))).single().decode(
                Int32.self, at: 0)
            #expect(secondPID != firstPID)
            #expect(pool.statistics.connectionsReplaced == 1)
        }
    }

    @Test func backendTerminatedMidStatementIsAConnectionErrorAndTheSlotIsReplaced() async throws {
        try await TestDatabase.withSchema(maxConnections: 1) { _, _, pool in
            let statement = "SELECT CASE WHEN $1::bool THEN pg_terminate_backend(pg_backend_pid()) END"
            _ = try await pool.query(positional(statement, false))
            do {
                try await pool.query(positional(statement, true))
                Issue.record("a statement whose backend terminates should fail")
            } catch let error as PostgresError {
                #expect(error.isConnectionError)
            }
            #expect(try await pool.query(positional(statement, false)).count == 1)
            #expect(pool.statistics.openConnections == 1)
        }
    }

    @Test func statementTheServerForgotIsPreparedAgain() async throws {
        try await TestDatabase.withSchema(maxConnections: 1) { _, _, pool in
            let statement = "SELECT $1::text || '?' AS question"
            #expect(
                try await pool.query(positional(statement, "who")).single().decode(String.self, at: 0)
                    == "who?")
            try await pool.execute(script: "DEALLOCATE ALL")
            #expect(
                try await pool.query(positional(statement, "why")).single().decode(String.self, at: 0)
                    == "why?")
        }
    }

    @Test func textParameterWithANULByteIsRefusedBeforeAnythingIsSent() async throws {
        try await TestDatabase.withSchema(maxConnections: 1) { _, _, pool in
            let statement = "SELECT length($1::text)"
            _ = try await pool.query(positional(statement, "fine"))
            do {
                try await pool.query(positional(statement, "cut\u{0}here"))
                Issue.record("a NUL byte should be refused")
            } catch let error as PostgresError {
                #expect(error.kind == .invalidParameter)
            }
            #expect(
                try await pool.query(positional(statement, "é")).single().decode(Int.self, at: 0) == 1)
        }
    }
}
