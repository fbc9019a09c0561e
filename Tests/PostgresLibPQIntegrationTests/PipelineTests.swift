import Foundation
import PostgresLibPQ
import SubLedgerTestSupport
import Testing

@Suite struct PipelineTests {
    static func insert(_ id: Int, _ note: String) -> PostgresQuery {
        "INSERT INTO notes (id, note) VALUES (\(id), \(note))"
    }
    static let count: PostgresQuery = "SELECT count(*) FROM notes"
    static let notes: PostgresQuery = "SELECT note FROM notes ORDER BY id"

    static func createNotes(_ pool: PostgresPool) async throws {
        try await pool.execute(script: "CREATE TABLE notes (id int8 PRIMARY KEY, note text NOT NULL)")
    }

    @Test func statementsRunInOrderInOneRoundTripAndEachReturnsItsRows() async throws {
        try await TestDatabase.withSchema(maxConnections: 1) { _, _, pool in
            try await Self.createNotes(pool)
            let (rows, roundTrips) = try await pool.withConnection { connection in
                var batch = PostgresBatch()
                batch.append(Self.insert(1, "first"))
                batch.append(Self.insert(2, "second"))
                let counted = batch.append(Self.count)
                batch.append("UPDATE notes SET note = note || '!'")
                let listed = batch.append(Self.notes)
                let before = connection.roundTrips
                let rows = try connection.pipeline(batch)
                return (
                    [
                        "\(rows[0].rowsAffected)", "\(try rows[counted].single().decode(Int.self, at: 0))",
                        "\(rows[3].rowsAffected)",
                    ] + (try rows[listed].map { try $0.decode(String.self, at: 0) }),
                    connection.roundTrips - before
                )
            }
            #expect(rows == ["1", "2", "2", "first!", "second!"])
            #expect(roundTrips == 1)
        }
    }

    @Test func statementsArePreparedInTheSameRoundTripAndReusedAfterwards() async throws {
        try await TestDatabase.withSchema(maxConnections: 1) { _, _, pool in
            try await Self.createNotes(pool)
            let roundTrips = try await pool.withConnection { connection in
                var counts: [Int] = []
                for round in 0..<3 {
                    var batch = PostgresBatch()
                    // The same statement twice in one batch is prepared once.
                    batch.append(Self.insert(round * 2, "a"))
                    batch.append(Self.insert(round * 2 + 1, "b"))
                    batch.append(Self.count)
                    let before = connection.roundTrips
                    let rows = try connection.pipeline(batch)
                    counts.append(connection.roundTrips - before)
                    #expect(try rows[2].single().decode(Int.self, at: 0) == round * 2 + 2)
                }
                // Prepared by the pipelines: a plain query of the statement needs no preparation of its own.
                let before = connection.roundTrips
                #expect(try connection.query(Self.count).single().decode(Int.self, at: 0) == 6)
                counts.append(connection.roundTrips - before)
                return counts
            }
            #expect(roundTrips == [1, 1, 1, 1])
        }
    }

    @Test func failureInTheMiddleThrowsThatStatementsErrorAsQueryWouldAndKeepsNothing() async throws {
        try await TestDatabase.withSchema(maxConnections: 1) { _, _, pool in
            try await Self.createNotes(pool)
            try await pool.query(Self.insert(7, "already there"))
            let (pipelined, queried, status, after) = try await pool.withConnection { connection in
                var batch = PostgresBatch()
                batch.append(Self.insert(1, "one"))
                batch.append(Self.insert(2, "two"))
                batch.append(Self.insert(7, "three: a duplicate key"))
                batch.append(Self.insert(4, "four"))
                batch.append(Self.count)
                batch.append("SELECT 1 / 0")
                var pipelined: PostgresError?
                do {
                    _ = try connection.pipeline(batch)
                } catch let error as PostgresError {
                    pipelined = error
                }
                var queried: PostgresError?
                do {
                    try connection.query(Self.insert(7, "three: a duplicate key"))
                } catch let error as PostgresError {
                    queried = error
                }
                let status = connection.transactionStatus
                // The connection is out of pipeline mode and usable, with a batch and a plain statement.
                var again = PostgresBatch()
                again.append(Self.insert(5, "five"))
                let counted = again.append(Self.count)
                let after = try connection.pipeline(again)[counted].single().decode(Int.self, at: 0)
                return (pipelined, queried, status, after)
            }
            #expect(pipelined?.sqlState == .uniqueViolation)
            #expect(pipelined?.kind == .queryFailed)
            #expect(pipelined?.sqlState == queried?.sqlState)
            #expect(pipelined?.constraintName == queried?.constraintName)
            #expect(pipelined?.message == queried?.message)
            #expect(pipelined?.constraintName == "notes_pkey")
            #expect(status == .idle)
            // Outside a transaction the batch is one implicit transaction: statements 1 and 2 are not kept.
            #expect(after == 2)
            let kept = try await pool.query(Self.notes).map { try $0.decode(String.self, at: 0) }
            #expect(kept == ["five", "already there"])
        }
    }

    @Test func failureInsideATransactionAbortsItAndTheRollbackLeavesNothing() async throws {
        try await TestDatabase.withSchema(maxConnections: 1) { _, _, pool in
            try await Self.createNotes(pool)
            do {
                try await pool.transaction { connection in
                    try connection.query(Self.insert(1, "before the batch"))
                    var batch = PostgresBatch()
                    batch.append(Self.insert(2, "in the batch"))
                    batch.append(Self.insert(1, "a duplicate key"))
                    batch.append(Self.insert(3, "never run"))
                    do {
                        _ = try connection.pipeline(batch)
                    } catch {
                        #expect(connection.transactionStatus == .inFailedTransaction)
                        throw error
                    }
                }
                Issue.record("the transaction should fail")
            } catch let error as PostgresError {
                #expect(error.sqlState == .uniqueViolation)
            }
            #expect(try await pool.query(Self.count).single().decode(Int.self, at: 0) == 0)
            // A batch whose failure the body swallows still fails the COMMIT, as a swallowed query error does.
            do {
                try await pool.transaction { connection in
                    var batch = PostgresBatch()
                    batch.append(Self.insert(1, "one"))
                    batch.append("SELECT 1 / 0")
                    _ = try? connection.pipeline(batch)
                }
                Issue.record("COMMIT after a failed batch should fail")
            } catch let error as PostgresError {
                #expect(error.kind == .transactionAborted)
            }
            #expect(try await pool.query(Self.count).single().decode(Int.self, at: 0) == 0)
            // And one that succeeds commits with the transaction.
            let written = try await pool.transaction { connection in
                var batch = PostgresBatch()
                batch.append(Self.insert(1, "one"))
                batch.append(Self.insert(2, "two"))
                return try connection.pipeline(batch).map(\.rowsAffected).reduce(0, +)
            }
            #expect(written == 2)
            #expect(try await pool.query(Self.count).single().decode(Int.self, at: 0) == 2)
        }
    }

    @Test func largeBatchOfLargeParametersAndResultsDoesNotDeadlock() async throws {
        try await TestDatabase.withSchema(maxConnections: 1) { _, _, pool in
            try await Self.createNotes(pool)
            let body = String(repeating: "notification body ", count: 700)  // about 12 KB
            let (inserted, echoed, total) = try await pool.transaction { connection in
                var batch = PostgresBatch()
                for id in 0..<300 {
                    batch.append(Self.insert(id, body + "\(id)"))
                    batch.append("SELECT \(body)::text || repeat('x', 50000)")
                }
                let counted = batch.append("SELECT sum(length(note)) FROM notes")
                let rows = try connection.pipeline(batch)
                let inserted = stride(from: 0, to: 600, by: 2).map { rows[$0].rowsAffected }.reduce(0, +)
                let echoed = try stride(from: 1, to: 600, by: 2).map {
                    try rows[$0].single().decode(String.self, at: 0).utf8.count
                }
                return (inserted, Set(echoed), try rows[counted].single().decode(Int.self, at: 0))
            }
            #expect(inserted == 300)
            #expect(echoed == [body.utf8.count + 50000])
            #expect(total == (0..<300).map { body.utf8.count + "\($0)".utf8.count }.reduce(0, +))
        }
    }

    @Test func textParameterWithANULByteIsRefusedBeforeAnythingIsSent() async throws {
        try await TestDatabase.withSchema(maxConnections: 1) { _, _, pool in
            try await Self.createNotes(pool)
            let (kind, roundTrips, status) = try await pool.withConnection { connection in
                var batch = PostgresBatch()
                batch.append(Self.insert(1, "fine"))
                batch.append(Self.insert(2, "cut\u{0}here"))
                let before = connection.roundTrips
                var kind: PostgresError.Kind?
                do {
                    _ = try connection.pipeline(batch)
                } catch let error as PostgresError {
                    kind = error.kind
                }
                return (kind, connection.roundTrips - before, connection.transactionStatus)
            }
            #expect(kind == .invalidParameter)
            #expect(roundTrips == 0)
            #expect(status == .idle)
            #expect(try await pool.query(Self.count).single().decode(Int.self, at: 0) == 0)
        }
    }

    @Test func backendTerminatedMidBatchIsAConnectionErrorAndTheSlotIsReplaced() async throws {
        try await TestDatabase.withSchema(maxConnections: 1) { _, _, pool in
            try await Self.createNotes(pool)
            let firstPID = try await pool.withConnection { $0.backendPID }
            do {
                try await pool.withConnection { connection in
                    var batch = PostgresBatch()
                    batch.append(Self.insert(1, "one"))
                    batch.append("SELECT pg_terminate_backend(pg_backend_pid())")
                    batch.append(Self.insert(2, "two"))
                    _ = try connection.pipeline(batch)
                }
                Issue.record("a batch whose backend terminates should fail")
            } catch let error as PostgresError {
                #expect(error.isConnectionError)
            }
            let secondPID = try await pool.withConnection { $0.backendPID }
            #expect(secondPID != firstPID)
            #expect(try await pool.query(Self.count).single().decode(Int.self, at: 0) == 0)
        }
    }

    @Test func statementsTheServerForgotArePreparedAgain() async throws {
        try await TestDatabase.withSchema(maxConnections: 1) { _, _, pool in
            try await Self.createNotes(pool)
            let counts = try await pool.withConnection { connection in
                var batch = PostgresBatch()
                batch.append(Self.insert(1, "one"))
                batch.append(Self.count)
                let first = try connection.pipeline(batch)[1].single().decode(Int.self, at: 0)
                try connection.execute(script: "DEALLOCATE ALL")
                var again = PostgresBatch()
                again.append(Self.insert(2, "two"))
                again.append(Self.count)
                let second = try connection.pipeline(again)[1].single().decode(Int.self, at: 0)
                return [first, second]
            }
            #expect(counts == [1, 2])
        }
    }

    @Test func aTransactionsBeginGoesWithItsFirstBatchAndAnEmptyBodySendsNothing() async throws {
        try await TestDatabase.withSchema(maxConnections: 1) { _, _, pool in
            try await Self.createNotes(pool)
            let (isolation, inTransaction, roundTrips) = try await pool.withConnection { connection in
                let before = connection.roundTrips
                let isolation = try connection.transaction(isolation: .repeatableRead) { connection in
                    var batch = PostgresBatch()
                    batch.append(Self.insert(1, "one"))
                    let shown = batch.append("SELECT current_setting('transaction_isolation')")
                    return try connection.pipeline(batch)[shown].single().decode(String.self, at: 0)
                }
                let inTransaction = try connection.transaction { connection in connection.transactionStatus }
                let empty = try connection.transaction { _ in 42 }
                #expect(empty == 42)
                return (isolation, inTransaction, connection.roundTrips - before)
            }
            #expect(isolation == "repeatable read")
            #expect(inTransaction == .inTransaction)
            // BEGIN with the batch, then COMMIT; the bodies that sent nothing cost nothing.
            #expect(roundTrips == 2)
            #expect(try await pool.query(Self.count).single().decode(Int.self, at: 0) == 1)
            // A single statement after a pending BEGIN shares its round trip too, and a failure rolls back.
            await #expect(throws: PostgresError.self) {
                try await pool.transaction { connection in
                    var batch = PostgresBatch()
                    batch.append(Self.insert(2, "two"))
                    _ = try connection.pipeline(batch)
                    try connection.query(Self.insert(1, "a duplicate key"))
                }
            }
            #expect(try await pool.query(Self.count).single().decode(Int.self, at: 0) == 1)
        }
    }

    @Test func aTransactionsLastBatchCarriesItsCommit() async throws {
        try await TestDatabase.withSchema(maxConnections: 1) { _, _, pool in
            try await Self.createNotes(pool)
            // BEGIN, the batch and COMMIT in one round trip; the transaction sends no COMMIT of its own.
            let (written, roundTrips, status) = try await pool.withConnection { connection in
                let before = connection.roundTrips
                let written = try connection.transaction { connection in
                    var batch = PostgresBatch()
                    batch.append(Self.insert(1, "one"))
                    batch.append(Self.insert(2, "two"))
                    return try connection.pipeline(batch, committing: true).map(\.rowsAffected).reduce(0, +)
                }
                return (written, connection.roundTrips - before, connection.transactionStatus)
            }
            #expect(written == 2)
            #expect(roundTrips == 1)
            #expect(status == .idle)
            // Seen from another connection: committed.
            let other = PostgresPool(configuration: pool.configuration, logger: TestDatabase.logger)
            #expect(try await other.query(Self.count).single().decode(Int.self, at: 0) == 2)
            await other.shutdown()

            // A failing statement skips the COMMIT: the transaction rolls back, and nothing of it is kept.
            await #expect(throws: PostgresError.self) {
                try await pool.transaction { connection in
                    try connection.query(Self.insert(3, "before the batch"))
                    var batch = PostgresBatch()
                    batch.append(Self.insert(4, "in the batch"))
                    batch.append(Self.insert(1, "a duplicate key"))
                    _ = try connection.pipeline(batch, committing: true)
                }
            }
            #expect(try await pool.query(Self.count).single().decode(Int.self, at: 0) == 2)

            // A batch whose failure the body swallowed: the COMMIT answers ROLLBACK, thrown as `transaction` throws it.
            do {
                try await pool.transaction { connection in
                    _ = try? connection.query("SELECT 1 / 0")
                    var batch = PostgresBatch()
                    batch.append(Self.insert(5, "after a failure"))
                    batch.append(Self.count)
                    _ = try connection.pipeline(batch, committing: true)
                }
                Issue.record("the transaction should fail")
            } catch let error as PostgresError {
                #expect(error.kind == .transactionAborted || error.sqlState == .inFailedSQLTransaction)
            }
            #expect(try await pool.query(Self.count).single().decode(Int.self, at: 0) == 2)

            // Nothing may follow the COMMIT: a statement after it is refused, and what was committed stays.
            await #expect(throws: PostgresError.self) {
                try await pool.transaction { connection in
                    var batch = PostgresBatch()
                    batch.append(Self.insert(6, "six"))
                    _ = try connection.pipeline(batch, committing: true)
                    try connection.query(Self.insert(7, "after the commit"))
                }
            }
            #expect(
                try await pool.query(Self.notes).map { try $0.decode(String.self, at: 0) } == ["one", "two", "six"])

            // Outside a transaction, `committing` changes nothing.
            let outside = try await pool.withConnection { connection in
                var batch = PostgresBatch()
                batch.append(Self.insert(8, "eight"))
                batch.append(Self.count)
                return try connection.pipeline(batch, committing: true)[1].single().decode(Int.self, at: 0)
            }
            #expect(outside == 4)
        }
    }

    @Test func emptyAndSingleStatementBatches() async throws {
        try await TestDatabase.withSchema(maxConnections: 1) { _, _, pool in
            try await Self.createNotes(pool)
            let (empty, single) = try await pool.withConnection { connection in
                let empty = try connection.pipeline(PostgresBatch()).count
                var batch = PostgresBatch()
                batch.append(Self.insert(1, "one"))
                return (empty, try connection.pipeline(batch).map(\.rowsAffected))
            }
            #expect(empty == 0)
            #expect(single == [1])
        }
    }
}
