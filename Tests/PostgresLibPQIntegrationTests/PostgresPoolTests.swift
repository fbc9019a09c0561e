import Foundation
import PostgresLibPQ
import SubLedgerTestSupport
import Testing

@Suite struct PostgresPoolTests {
    @Test func twoHundredConcurrentTasksShareFourConnectionsWithoutDeadlock() async throws {
        try await TestDatabase.withSchema(maxConnections: 4) { _, _, pool in
            let total = try await withThrowingTaskGroup(of: Int64.self) { group in
                for index in 0..<200 {
                    group.addTask {
                        let rows = try await pool.query("SELECT $1::int8 * 2 AS doubled", [Int64(index)])
                        return try rows.single().decode(Int64.self, column: "doubled")
                    }
                }
                return try await group.reduce(0, +)
            }
            #expect(total == 2 * (0..<200).reduce(0, +))
            let statistics = pool.statistics
            #expect(statistics.connectionsOpened <= 4)
            #expect(statistics.openConnections <= 4)
            #expect(statistics.inUse == 0)
            #expect(statistics.waiters == 0)
        }
    }

    @Test func acquireTimesOutWhenEveryConnectionIsHeld() async throws {
        try await TestDatabase.withSchema(maxConnections: 1, acquireTimeout: .milliseconds(300)) { _, _, pool in
            let holder = Task {
                try await pool.withConnection { connection in
                    try connection.query("SELECT pg_sleep(4)")
                }
            }
            try await waitUntil { pool.statistics.inUse == 1 }
            let clock = ContinuousClock()
            let start = clock.now
            do {
                try await pool.query("SELECT 1")
                Issue.record("acquire should have timed out")
            } catch let error as PostgresError {
                #expect(error.kind == .poolTimeout)
            }
            let waited = clock.now - start
            #expect(waited >= .milliseconds(250))
            // The error came while the connection was still held: the waiter gave up, it did not outwait the
            // holder. (A state check, not a wall-clock bound: this machine's timing is noisy.)
            #expect(pool.statistics.inUse == 1)
            _ = try await holder.value
            // Once the holder is done the pool serves again.
            let rows = try await pool.query("SELECT 1 AS one")
            #expect(try rows.single().decode(Int.self, at: 0) == 1)
        }
    }

    /// Waiters share one scheduled sweep, due at the earliest deadline: each must still give up at its own
    /// deadline (not the first waiter's), and a waiter arriving after everyone else timed out must still time out.
    @Test func eachWaiterTimesOutAtItsOwnDeadline() async throws {
        try await TestDatabase.withSchema(maxConnections: 1, acquireTimeout: .milliseconds(600)) { _, _, pool in
            let holder = Task {
                try await pool.withConnection { connection in
                    try connection.query("SELECT pg_sleep(5)")
                }
            }
            try await waitUntil { pool.statistics.inUse == 1 }
            let clock = ContinuousClock()
            func waitForTimeout() async -> Duration? {
                let start = clock.now
                do {
                    try await pool.query("SELECT 1")
                    return nil
                } catch let error as PostgresError where error.kind == .poolTimeout {
                    return clock.now - start
                } catch {
                    return nil
                }
            }
            let first = Task { await waitForTimeout() }
            try await Task.sleep(for: .milliseconds(300))
            let second = Task { await waitForTimeout() }
            let firstWaited = try #require(await first.value)
            #expect(firstWaited >= .milliseconds(550))
            // The first waiter's sweep left the second one waiting: its deadline is 300 ms later.
            #expect(pool.statistics.waiters == 1)
            let secondWaited = try #require(await second.value)
            #expect(secondWaited >= .milliseconds(550))
            #expect(pool.statistics.waiters == 0)
            // Nobody waits now, so no sweep is scheduled: the next waiter schedules its own.
            let third = try #require(await waitForTimeout())
            #expect(third >= .milliseconds(550))
            #expect(pool.statistics.inUse == 1)
            _ = try await holder.value
            let rows = try await pool.query("SELECT 1 AS one")
            #expect(try rows.single().decode(Int.self, at: 0) == 1)
        }
    }

    @Test func terminatedBackendIsReplacedOnNextAcquire() async throws {
        try await TestDatabase.withSchema(maxConnections: 1) { _, _, pool in
            let firstPID = try await pool.withConnection { $0.backendPID }
            let admin = PostgresPool(configuration: try TestDatabase.configuration(maxConnections: 1))
            // The timeout form waits until the backend has exited, so its socket is closed.
            let terminated = try await admin.query("SELECT pg_terminate_backend($1, 5000)", [firstPID])
            await admin.shutdown()
            #expect(try terminated.single().decode(Bool.self, at: 0))

            let rows = try await pool.query("SELECT pg_backend_pid()")
            let secondPID = try rows.single().decode(Int32.self, at: 0)
            #expect(secondPID != firstPID)
            #expect(pool.statistics.connectionsReplaced == 1)
            #expect(pool.statistics.openConnections == 1)
        }
    }

    @Test func connectionBrokenDuringUseIsDiscardedAndReplaced() async throws {
        try await TestDatabase.withSchema(maxConnections: 1) { _, _, pool in
            let firstPID = try await pool.withConnection { $0.backendPID }
            do {
                // The backend terminates itself mid-query: a connection-level failure.
                try await pool.query("SELECT pg_terminate_backend(pg_backend_pid())")
                Issue.record("query on a self-terminated backend should fail")
            } catch let error as PostgresError {
                #expect(error.isConnectionError)
            }
            let secondPID = try await pool.withConnection { $0.backendPID }
            #expect(secondPID != firstPID)
            #expect(try await pool.query("SELECT 42").single().decode(Int.self, at: 0) == 42)
        }
    }

    @Test func closeFailsWaitersAndLaterAcquires() async throws {
        let pool = PostgresPool(configuration: try TestDatabase.configuration(maxConnections: 1))
        // The holder keeps the only connection until the test releases it, however slow the machine is.
        let release = DispatchSemaphore(value: 0)
        let holder = Task {
            try await pool.withConnection { connection in
                try connection.query("SELECT 1")
                release.wait()
            }
        }
        try await waitUntil { pool.statistics.inUse == 1 }
        let waiter = Task { try await pool.query("SELECT 1") }
        try await waitUntil { pool.statistics.waiters == 1 }
        pool.close()
        do {
            _ = try await waiter.value
            Issue.record("waiter should fail when the pool closes")
        } catch let error as PostgresError {
            #expect(error.kind == .poolClosed)
        }
        release.signal()
        _ = try await holder.value
        await pool.shutdown()
        #expect(pool.statistics.openConnections == 0)
        await #expect(throws: PostgresError.self) { try await pool.query("SELECT 1") }
    }

    @Test func leftOpenTransactionIsRolledBackBeforeReuse() async throws {
        try await TestDatabase.withSchema(maxConnections: 1) { _, _, pool in
            try await pool.execute(script: "CREATE TABLE notes (body text NOT NULL)")
            try await pool.withConnection { connection in
                try connection.query("BEGIN")
                try connection.query("INSERT INTO notes VALUES ('never committed')")
            }
            let rows = try await pool.query("SELECT count(*) FROM notes")
            #expect(try rows.single().decode(Int.self, at: 0) == 0)
        }
    }

    @Test func cachedStatementsArePreparedOncePerConnection() async throws {
        try await TestDatabase.withSchema(maxConnections: 1) { _, _, pool in
            let statement = PostgresStatement("SELECT $1::int8 + 1 AS next")
            for value in [Int64(1), 41, -5] {
                let rows = try await pool.query(statement, [value])
                #expect(try rows.single().decode(Int64.self, at: 0) == value + 1)
            }
            let prepared = try await pool.query(
                "SELECT count(*) FROM pg_prepared_statements WHERE statement = $1", [statement.sql])
            #expect(try prepared.single().decode(Int.self, at: 0) == 1)
        }
    }

    @Test func cachedStatementSurvivesRolledBackTransaction() async throws {
        try await TestDatabase.withSchema(maxConnections: 1) { _, _, pool in
            struct Abort: Error {}
            let statement = PostgresStatement("SELECT $1::text || '!' AS shout")
            await #expect(throws: Abort.self) {
                try await pool.transaction { connection in
                    _ = try connection.query(statement, ["first"])
                    throw Abort()
                }
            }
            let shout = try await pool.transaction { connection in
                try connection.query(statement, ["second"]).single().decode(String.self, at: 0)
            }
            #expect(shout == "second!")
        }
    }

    @Test func cancelledWaiterLeavesTheQueue() async throws {
        try await TestDatabase.withSchema(maxConnections: 1) { _, _, pool in
            let holder = Task {
                try await pool.withConnection { connection in try connection.query("SELECT pg_sleep(0.5)") }
            }
            try await waitUntil { pool.statistics.inUse == 1 }
            let waiter = Task { try await pool.query("SELECT 1") }
            try await waitUntil { pool.statistics.waiters == 1 }
            waiter.cancel()
            await #expect(throws: CancellationError.self) { try await waiter.value }
            #expect(pool.statistics.waiters == 0)
            _ = try await holder.value
            #expect(try await pool.query("SELECT 2").single().decode(Int.self, at: 0) == 2)
        }
    }

    private func waitUntil(_ condition: () -> Bool) async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !condition() {
            guard ContinuousClock.now < deadline else {
                Issue.record("condition not reached within 10 s")
                return
            }
            try await Task.sleep(for: .milliseconds(10))
        }
    }
}
