import Logging
import Synchronization

/// One pool slot: a dedicated thread and the connection confined to it, opened lazily and replaced
/// when found dead.
final class PooledConnection: @unchecked Sendable {
    let id: Int
    private let worker: WorkerThread
    private let configuration: PostgresConfiguration
    private let logger: Logger
    private let counters: PoolCounters
    // Used by one holder of the slot's lease at a time: on `worker`'s thread, or by the leasing task in
    // `queryWithoutHandOff` (the pool's lock orders one lease after the previous one).
    private var connection: PostgresConnection?
    // Written on the worker inside a job (or by the leasing task); read by the pool after that job's result
    // was delivered (the continuation's resume orders the two).
    private(set) var isBroken = false

    init(id: Int, configuration: PostgresConfiguration, logger: Logger, counters: PoolCounters) {
        self.id = id
        self.configuration = configuration
        self.logger = logger
        self.counters = counters
        self.worker = WorkerThread(name: "postgres-connection-\(id)")
    }

    /// Runs `body` with a live connection on this slot's thread: one hop per unit of work.
    func run<T: Sendable>(_ body: @Sendable (PostgresConnection) throws -> T) async throws -> T {
        try await worker.run { try self.runHere(body) }
    }

    /// Runs `body` with a live connection on the calling thread (this slot's), and tidies the connection after it.
    private func runHere<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
        let connection = try liveConnection()
        do {
            let value = try body(connection)
            tidyAfterUse(connection, error: nil)
            return value
        } catch {
            tidyAfterUse(connection, error: error)
            throw error
        }
    }

    #if os(Linux)
        /// Runs one statement from the calling task, with no hop to this slot's thread, when the slot can:
        /// its connection is open and alive and has `key` prepared (`SocketReadiness` waits for the reply).
        /// Returns nil when it cannot (no connection yet, statement not prepared here, connection found dead,
        /// or the server lost the statement): the caller then uses `run`, which opens, replaces or prepares.
        ///
        /// The caller holds the slot's lease, so nothing runs on the slot's thread meanwhile.
        func queryWithoutHandOff(_ key: StatementCache.Key, values: [PostgresValue]) async throws -> PostgresRows? {
            guard let connection, let name = connection.statementCache.name(for: key), connection.probeIsAlive()
            else { return nil }
            do {
                let rows = try await connection.executeAwaitingReadiness(prepared: name, values: values, sql: key.sql)
                return try settle(.success(rows), key: key, on: connection)
            } catch {
                return try settle(.failure(error), key: key, on: connection)
            }
        }

        /// `queryWithoutHandOff` without a task: false when the slot cannot (as nil is there), else `completion`
        /// gets the outcome (nil: the server lost the statement, use `run`) on the readiness thread or this one.
        /// Unlike the task's form it does not probe the connection first, so a backend terminated while the
        /// connection sat idle fails this statement (and the slot is replaced).
        func queryWithoutHandOff(
            _ key: StatementCache.Key, values: [PostgresValue],
            completion: @escaping @Sendable (Result<PostgresRows?, any Error>) -> Void
        ) -> Bool {
            // No probe of an idle connection here (a `poll` per statement): a connection the server closed fails
            // the statement instead, and this form's callers take a failure as "ask again another way".
            guard let connection, let name = connection.statementCache.name(for: key), connection.isHealthy
            else { return false }
            // The lease confines the connection to whichever thread holds the reply.
            nonisolated(unsafe) let held = connection
            connection.executeWhenReadable(prepared: name, values: values, sql: key.sql) { outcome in
                completion(Result { try self.settle(outcome, key: key, on: held) })
            }
            return true
        }

        /// Tidies the connection after a statement sent without a hand-off, and says what its caller gets.
        private func settle(
            _ outcome: Result<PostgresRows, any Error>, key: StatementCache.Key, on connection: PostgresConnection
        ) throws -> PostgresRows? {
            switch outcome {
            case .success(let rows):
                tidyAfterUse(connection, error: nil)
                return rows
            case .failure(let error as PostgresError)
            where error.sqlState == .featureNotSupported || error.sqlState == .invalidSQLStatementName:
                // As `PostgresConnection.query(_:_:)` does: forget the statement; one that the server lost is
                // prepared again at once (outside a transaction) by the caller's `run`.
                connection.statementCache.remove(key)
                tidyAfterUse(connection, error: error)
                if error.sqlState == .invalidSQLStatementName, !isBroken { return nil }
                throw error
            case .failure(let error):
                tidyAfterUse(connection, error: error)
                throw error
            }
        }
    #endif

    /// `run` without a task: `completion` gets `body`'s outcome on this slot's thread (or at once, on the caller's,
    /// when the thread has stopped).
    func run<T: Sendable>(
        _ body: @escaping @Sendable (PostgresConnection) throws -> T,
        completion: @escaping @Sendable (Result<T, any Error>) -> Void
    ) {
        let accepted = worker.submit {
            completion(Result { try self.runHere(body) })
        }
        if !accepted {
            completion(.failure(PostgresError(.poolClosed, message: "connection thread has stopped")))
        }
    }

    /// Closes the connection on its thread, then ends the thread; `completion` runs on that thread.
    func retire(completion: (@Sendable () -> Void)?) {
        let accepted = worker.submit {
            self.closeConnection()
            completion?()
        }
        worker.stop()
        if !accepted {
            completion?()
        }
    }

    // MARK: - On the worker thread

    private func liveConnection() throws -> PostgresConnection {
        if let connection {
            if connection.probeIsAlive() {
                return connection
            }
            logger.debug(
                "replacing broken PostgreSQL connection",
                metadata: ["postgres.slot": "\(id)", "postgres.backend_pid": "\(connection.backendPID)"])
            counters.connectionsReplaced.add(1, ordering: .relaxed)
            closeConnection()
        }
        do {
            let opened = try PostgresConnection.connect(configuration, logger: logger)
            counters.connectionsOpened.add(1, ordering: .relaxed)
            connection = opened
            return opened
        } catch {
            // A slot that cannot connect is given up; the pool opens a fresh one for the next caller.
            isBroken = true
            throw error
        }
    }

    private func tidyAfterUse(_ connection: PostgresConnection, error: (any Error)?) {
        if let error = error as? PostgresError, error.isConnectionError {
            isBroken = true
            return
        }
        guard connection.isHealthy else {
            isBroken = true
            return
        }
        if connection.transactionStatus != .idle {
            // The body left a transaction open; never hand that state to the next caller.
            logger.debug(
                "rolling back a transaction left open on a pooled connection", metadata: ["postgres.slot": "\(id)"])
            connection.rollbackQuietly()
            if connection.transactionStatus != .idle || !connection.isHealthy {
                isBroken = true
            }
        }
    }

    private func closeConnection() {
        guard let connection else { return }
        connection.close()
        self.connection = nil
        counters.connectionsClosed.add(1, ordering: .relaxed)
    }
}

/// Lifetime counters of a pool, updated from connection threads.
final class PoolCounters: Sendable {
    let connectionsOpened = Atomic<Int>(0)
    let connectionsClosed = Atomic<Int>(0)
    let connectionsReplaced = Atomic<Int>(0)
}
