import Foundation
import PostgresLibPQ
import SubLedgerTestSupport
import Synchronization
import Testing

/// Statements awaited on a readiness thread (`PostgresPool.query`, both forms) while every connection
/// of the pool is blocked behind a lock and more callers wait for a connection: each one completes once the lock is
/// released.
@Suite struct ReadinessUnderLockTests {
    /// How long a read may take, once the lock is released, before the test gives up on it: a bound against a hang
    /// (the read is then reported, not awaited forever), not a measurement.
    private static let bound: Duration = .seconds(120)
    private static let connections = 3
    /// Twice the connections: as many wait for the pool as wait for the lock.
    private static let readers = 2 * connections

    @Test func readsAwaitedOnReadinessCompleteOnceTheLockBlockingThePoolIsReleased() async throws {
        try await TestDatabase.withSchema(maxConnections: 1) { _, configuration, observer in
            try await observer.execute(script: "CREATE TABLE held (n int); INSERT INTO held VALUES (1)")
            var poolConfiguration = configuration
            poolConfiguration.maxConnections = Self.connections
            let pool = PostgresPool(configuration: poolConfiguration)
            let holder = PostgresPool(configuration: configuration)
            let read = PostgresQuery(unsafeSQL: "SELECT count(*)::bigint FROM held", parameters: [])
            var everyReadCompleted = false
            defer {
                // A read still in flight keeps its connection leased: close without waiting for it (the test's
                // database is dropped WITH (FORCE)).
                if !everyReadCompleted {
                    pool.close()
                    holder.close()
                }
            }
            // Round 1: the first read on each connection prepares the statement on the connection's thread; the
            // callers that waited for a connection are handed a prepared one and take the readiness path. Round 2:
            // every read takes the readiness path.
            for round in 1...2 {
                let release = Mutex(false)
                let locked = Mutex(false)
                let lock = Task {
                    try await holder.transaction { connection in
                        try connection.execute(script: "LOCK TABLE held IN ACCESS EXCLUSIVE MODE")
                        locked.withLock { $0 = true }
                        while !release.withLock({ $0 }) { Thread.sleep(forTimeInterval: 0.005) }
                    }
                }
                while !locked.withLock({ $0 }) { try await Task.sleep(for: .milliseconds(5)) }
                // Alternately a task's read and a read without a task (its reply taken on the readiness thread,
                // which releases the connection to the next caller waiting for it).
                let reads = (0..<Self.readers).map { index in
                    Task {
                        let rows: PostgresRows
                        if index.isMultiple(of: 2) {
                            rows = try await pool.query(read)
                        } else {
                            rows = try await withCheckedThrowingContinuation { continuation in
                                pool.query(read) { continuation.resume(with: $0) }
                            }
                        }
                        return try rows.single().decode(Int64.self, at: 0)
                    }
                }
                // Every connection of the pool waits for the lock (the other readers wait for a connection).
                var waiting: Int64 = 0
                for _ in 0..<12_000 where waiting < Self.connections {
                    waiting = try await observer.query(
                        "SELECT count(*)::bigint FROM pg_locks WHERE relation = 'held'::regclass AND NOT granted"
                    ).single().decode(Int64.self, at: 0)
                    if waiting < Self.connections { try await Task.sleep(for: .milliseconds(10)) }
                }
                try #require(
                    waiting == Self.connections,
                    "round \(round): \(waiting) of the pool's connections wait for the lock")
                release.withLock { $0 = true }
                try await lock.value
                for (index, task) in reads.enumerated() {
                    let count = try await valueWithin(Self.bound) { try await task.value }
                    try #require(
                        count != nil,
                        """
                        round \(round): read \(index + 1) of \(Self.readers) did not complete within \(Self.bound) \
                        after the lock was released
                        """)
                    #expect(count == 1)
                }
            }
            everyReadCompleted = true
            await pool.shutdown()
            await holder.shutdown()
        }
    }
}
