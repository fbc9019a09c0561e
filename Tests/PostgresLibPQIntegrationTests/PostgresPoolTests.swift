import Foundation
import PostgresLibPQ
import SubLedgerTestSupport
import Testing

/// `sql` with positional parameters (`$1…`) bound to `values`: these tests drive the prepared-statement cache with
/// statements written as the server sees them.
private func positional(_ sql: String, _ values: any PostgresEncodable...) -> PostgresQuery {
    PostgresQuery(unsafeSQL: sql, parameters: values.map(\.postgresValue))
}

@Suite struct PostgresPoolTests {
    @Test func twoHundredConcurrentTasksShareFourConnectionsWithoutDeadlock() async throws {
        try await TestDatabase.withSchema(maxConnections: 4) { _, _, pool in
            let total = try await withThrowingTaskGroup(of: Int64.self) { group in
                for index in 0..<200 {
                    group.addTask {
                        let rows = try await pool.query("SELECT \(Int64(index))::int8 * 2 AS doubled")
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

    /// A pool whose one connection is held until `release()`, on a deadline clock the test moves.
    private struct HeldPool {
        let pool: PostgresPool
        let clock = ManualDeadlineClock()
        let gate = DispatchSemaphore(value: 0)
        let holder: Task<Void, any Error>

        init(_ configuration: PostgresConfiguration) {
            let clock = self.clock
            let gate = self.gate
            pool = PostgresPool(configuration: configuration, logger: TestDatabase.logger, deadlineClock: clock.clock)
            holder = Task { [pool] in try await pool.withConnection { _ in gate.wait() } }
        }

        /// Starts an acquire that reports whether it ended in `poolTimeout`.
        func waiter() -> Task<Bool, Never> {
            Task { [pool] in
                do {
                    try await pool.query("SELECT 1")
                    return false
                } catch let error as PostgresError {
                    return error.kind == .poolTimeout
                } catch {
                    return false
                }
            }
        }

        func release() async throws {
            gate.signal()
            try await holder.value
        }
    }

    @Test func acquireTimesOutWhenEveryConnectionIsHeld() async throws {
        try await TestDatabase.withSchema(maxConnections: 1, acquireTimeout: .milliseconds(300)) {
            _, configuration, _ in
            let held = HeldPool(configuration)
            let pool = held.pool
            try await waitUntil { pool.statistics.inUse == 1 }
            let waiter = held.waiter()
            try await waitUntil { pool.statistics.waiters == 1 }
            held.clock.advance(by: .milliseconds(299))
            #expect(pool.statistics.waiters == 1, "still waiting a millisecond before its deadline")
            held.clock.advance(by: .milliseconds(1))
            #expect(await waiter.value, "timed out at its deadline")
            // The error came while the connection was still held: the waiter gave up, it did not outwait the holder.
            #expect(pool.statistics.inUse == 1)
            try await held.release()
            // Once the holder is done the pool serves again.
            let rows = try await pool.query("SELECT 1 AS one")
            #expect(try rows.single().decode(Int.self, at: 0) == 1)
            await pool.shutdown()
        }
    }

    /// Waiters share one scheduled sweep, due at the earliest deadline: each must still give up at its own
    /// deadline (not the first waiter's), and a waiter arriving after everyone else timed out must still time out.
    @Test func eachWaiterTimesOutAtItsOwnDeadline() async throws {
        try await TestDatabase.withSchema(maxConnections: 1, acquireTimeout: .milliseconds(600)) {
            _, configuration, _ in
            let held = HeldPool(configuration)
            let pool = held.pool
            try await waitUntil { pool.statistics.inUse == 1 }
            let first = held.waiter()
            try await waitUntil { pool.statistics.waiters == 1 }
            #expect(held.clock.pending == 1)
            held.clock.advance(by: .milliseconds(300))
            let second = held.waiter()
            try await waitUntil { pool.statistics.waiters == 2 }
            #expect(held.clock.pending == 1, "one sweep for both waiters")

            held.clock.advance(by: .milliseconds(299))  // 599 ms after the first arrived
            #expect(pool.statistics.waiters == 2)
            held.clock.advance(by: .milliseconds(1))
            #expect(await first.value)
            // The first waiter's sweep left the second one waiting: its deadline is 300 ms later.
            #expect(pool.statistics.waiters == 1)
            #expect(held.clock.pending == 1, "the sweep scheduled the next one, at the second's deadline")
            held.clock.advance(by: .milliseconds(299))
            #expect(pool.statistics.waiters == 1)
            held.clock.advance(by: .milliseconds(1))
            #expect(await second.value)
            #expect(pool.statistics.waiters == 0)
            #expect(held.clock.pending == 0, "nobody waits, so no sweep is scheduled")

            // The next waiter schedules its own sweep.
            let third = held.waiter()
            try await waitUntil { pool.statistics.waiters == 1 }
            #expect(held.clock.pending == 1)
            held.clock.advance(by: .milliseconds(600))
            #expect(await third.value)
            #expect(pool.statistics.inUse == 1)
            try await held.release()
            let rows = try await pool.query("SELECT 1 AS one")
            #expect(try rows.single().decode(Int.self, at: 0) == 1)
            await pool.shutdown()
        }
    }

    @Test func terminatedBackendIsReplacedOnNextAcquire() async throws {
        try await TestDatabase.withSchema(maxConnections: 1) { _, _, pool in
            let firstPID = try await pool.withConnection { $0.backendPID }
            let admin = PostgresPool(configuration: try TestDatabase.configuration(maxConnections: 1))
            // The timeout form waits until the backend has exited, so its socket is closed.
            let terminated = try await admin.query("SELECT pg_terminate_backend(\(firstPID), 5000)")
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
                try connection.execute(script: "BEGIN")
                try connection.query("INSERT INTO notes VALUES ('never committed')")
            }
            let rows = try await pool.query("SELECT count(*) FROM notes")
            #expect(try rows.single().decode(Int.self, at: 0) == 0)
        }
    }

    @Test func cachedStatementsArePreparedOncePerConnection() async throws {
        try await TestDatabase.withSchema(maxConnections: 1) { _, _, pool in
            let statement = "SELECT $1::int8 + 1 AS next"
            for value in [Int64(1), 41, -5] {
                let rows = try await pool.query(positional(statement, value))
                #expect(try rows.single().decode(Int64.self, at: 0) == value + 1)
            }
            let prepared = try await pool.query(
                "SELECT count(*) FROM pg_prepared_statements WHERE statement = \(statement)")
            #expect(try prepared.single().decode(Int.self, at: 0) == 1)
        }
    }

    @Test func cachedStatementSurvivesRolledBackTransaction() async throws {
        try await TestDatabase.withSchema(maxConnections: 1) { _, _, pool in
            struct Abort: Error {}
            let statement = "SELECT $1::text || '!' AS shout"
            await #expect(throws: Abort.self) {
                try await pool.transaction { connection in
                    _ = try connection.query(positional(statement, "first"))
                    throw Abort()
                }
            }
            let shout = try await pool.transaction { connection in
                try connection.query(positional(statement, "second")).single().decode(String.self, at: 0)
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
