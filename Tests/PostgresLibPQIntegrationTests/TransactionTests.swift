import Foundation
import PostgresLibPQ
import SubLedgerTestSupport
import Testing

@Suite struct TransactionTests {
    struct DeliberateFailure: Error {}

    @Test func thrownErrorRollsBackTheTransaction() async throws {
        try await TestDatabase.withSchema { _, _, pool in
            try await pool.execute(script: "CREATE TABLE ledger_entries (id int8 PRIMARY KEY, note text)")
            await #expect(throws: DeliberateFailure.self) {
                try await pool.transaction { connection in
                    try connection.query("INSERT INTO ledger_entries VALUES (\(Int64(1)), \("rolled back"))")
                    throw DeliberateFailure()
                }
            }
            let rows = try await pool.query("SELECT count(*) FROM ledger_entries")
            #expect(try rows.single().decode(Int.self, at: 0) == 0)
        }
    }

    @Test func committedTransactionIsVisible() async throws {
        try await TestDatabase.withSchema { _, _, pool in
            try await pool.execute(script: "CREATE TABLE ledger_entries (id int8 PRIMARY KEY, note text)")
            let inserted = try await pool.transaction(isolation: .repeatableRead) { connection in
                try connection.query("INSERT INTO ledger_entries VALUES (\(1), \("a")), (\(2), \("b"))")
                    .rowsAffected
            }
            #expect(inserted == 2)
            let rows = try await pool.query("SELECT note FROM ledger_entries ORDER BY id")
            #expect(try rows.map { try $0.decode(String.self, at: 0) } == ["a", "b"])
        }
    }

    @Test func serializationFailureIsRetriedUntilBothTransactionsCommit() async throws {
        try await TestDatabase.withSchema(maxConnections: 2) { _, _, pool in
            try await pool.execute(
                script: """
                    CREATE TABLE counters (id int PRIMARY KEY, value int NOT NULL);
                    INSERT INTO counters VALUES (1, 0);
                    """)
            // Both transactions read the row before either writes, so the second writer must fail with
            // 40001 ("could not serialize access due to concurrent update") and be retried.
            let barrier = ThreadBarrier(parties: 2)
            let totalAttempts = Counter()

            @Sendable func increment(_ attempts: Counter, _ connection: PostgresConnection) throws -> Int {
                let attempt = attempts.increment()
                totalAttempts.increment()
                let current = try connection.query("SELECT value FROM counters WHERE id = 1")
                    .single().decode(Int.self, at: 0)
                if attempt == 1, !barrier.arriveAndWait() {
                    throw BarrierTimeout()
                }
                try connection.query("UPDATE counters SET value = \(current + 1) WHERE id = 1")
                return attempt
            }

            let firstAttempts = Counter()
            let secondAttempts = Counter()
            async let first = pool.transaction(isolation: .serializable) { try increment(firstAttempts, $0) }
            async let second = pool.transaction(isolation: .serializable) { try increment(secondAttempts, $0) }
            let attemptsUsed = try await [first, second]

            #expect(attemptsUsed.sorted() == [1, 2])
            #expect(totalAttempts.value == 3)
            let rows = try await pool.query("SELECT value FROM counters WHERE id = 1")
            #expect(try rows.single().decode(Int.self, at: 0) == 2)
        }
    }

    @Test func retriesStopAfterMaxAttempts() async throws {
        try await TestDatabase.withSchema { _, _, pool in
            let attempts = Counter()
            do {
                try await pool.transaction(maxAttempts: 3) { connection in
                    attempts.increment()
                    // Raise a serialization failure directly to exercise the retry loop's bound.
                    try connection.execute(
                        script: "DO $$ BEGIN RAISE EXCEPTION 'forced' USING ERRCODE = 'serialization_failure'; END $$")
                }
                Issue.record("transaction should fail after the last attempt")
            } catch let error as PostgresError {
                #expect(error.sqlState == .serializationFailure)
            }
            #expect(attempts.value == 3)
        }
    }

    @Test func swallowedStatementErrorStillFailsTheCommit() async throws {
        try await TestDatabase.withSchema { _, _, pool in
            try await pool.execute(script: "CREATE TABLE accounts (id int PRIMARY KEY)")
            do {
                try await pool.transaction { connection in
                    try connection.query("INSERT INTO accounts VALUES (1)")
                    _ = try? connection.query("INSERT INTO accounts VALUES (1)")  // unique violation, ignored
                }
                Issue.record("COMMIT of an aborted transaction must not look successful")
            } catch let error as PostgresError {
                #expect(error.kind == .transactionAborted)
                #expect(error.sqlState == .uniqueViolation)
            }
            let rows = try await pool.query("SELECT count(*) FROM accounts")
            #expect(try rows.single().decode(Int.self, at: 0) == 0)
        }
    }
}
