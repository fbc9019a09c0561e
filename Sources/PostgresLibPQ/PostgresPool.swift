import Dispatch
import Foundation
import Logging
import Synchronization
import Tracing

/// A bounded pool of libpq connections whose blocking calls run on one dedicated thread per connection.
///
/// Connections open lazily up to `maxConnections`; callers beyond that wait in FIFO order for at most
/// `acquireTimeout`. Each unit of work (`withConnection`, `transaction`) is one hop to a connection's
/// thread, so synchronous ledger logic runs inside a transaction without touching the cooperative pool.
/// A connection found dead (terminated backend, network loss) is discarded and replaced.
public final class PostgresPool: Sendable {
    /// The configuration connections are opened with.
    public let configuration: PostgresConfiguration
    let logger: Logger
    private let maxConnections: Int
    private let state = Mutex(State())
    private let counters = PoolCounters()
    /// Whether `query(_:_:)` with a `PostgresStatement` may skip the connection's thread (Linux, where the
    /// readiness threads could start; see there). Elsewhere every statement runs on its connection's thread.
    private let awaitsReadiness: Bool
    /// The clock of acquire deadlines (`PoolDeadlineClock.system` but in tests).
    private let deadlineClock: PoolDeadlineClock

    private struct State {
        var idle: [PooledConnection] = []
        /// Slots that exist: idle, leased, or retiring (their connection still counts against the server).
        var slotCount = 0
        var leased = 0
        var waiters: [Waiter] = []
        /// Whether a sweep for waiters past their deadline is scheduled. There is at most one, due at the earliest
        /// waiter's deadline, rather than a timer per waiter: under load most acquires wait briefly, and a
        /// timer each (10 s long by default) kept hundreds of thousands of them pending at 40,000 reads/s.
        var sweepScheduled = false
        var isClosed = false
        var nextSlotID = 1
        var shutdownWaiters: [CheckedContinuation<Void, Never>] = []
        /// Running LISTEN loops, stopped by `close()`.
        var listeners: [ObjectIdentifier: NotificationListener] = [:]

        /// Whether a closed pool has nothing left running, so `shutdown()` may return.
        var isFullyShutDown: Bool { isClosed && slotCount == 0 && listeners.isEmpty }
    }

    /// Where a leased connection goes: a task suspended in `acquire`, or a callback (`acquire(then:)`).
    private enum Handoff {
        case task(CheckedContinuation<PooledConnection, any Error>)
        case callback(@Sendable (Result<PooledConnection, any Error>) -> Void)

        func resume(returning slot: PooledConnection) {
            switch self {
            case .task(let continuation): continuation.resume(returning: slot)
            case .callback(let callback): callback(.success(slot))
            }
        }

        func resume(throwing error: any Error) {
            switch self {
            case .task(let continuation): continuation.resume(throwing: error)
            case .callback(let callback): callback(.failure(error))
            }
        }
    }

    /// One caller waiting in `acquire`; its fields are guarded by the pool's lock.
    private final class Waiter: @unchecked Sendable {
        var continuation: Handoff?
        var isCancelled = false
        /// When the wait ends in `poolTimeout`, in nanoseconds of the pool's deadline clock.
        var deadline: UInt64 = 0
    }

    /// Creates a pool; no connection is opened until the first use. `deadlineClock` times acquire deadlines.
    public init(
        configuration: PostgresConfiguration, logger: Logger = Logger(label: "PostgresLibPQ"),
        deadlineClock: PoolDeadlineClock = .system
    ) {
        self.configuration = configuration
        self.logger = logger
        self.deadlineClock = deadlineClock
        self.maxConnections = max(1, configuration.maxConnections)
        #if os(Linux)
            self.awaitsReadiness = SocketReadiness.shared.isAvailable
        #else
            self.awaitsReadiness = false
        #endif
    }

    deinit {
        // Only idle slots can remain (a lease keeps the pool alive); end their threads.
        let idle = state.withLock { state in
            let idle = state.idle
            state.idle = []
            return idle
        }
        for slot in idle {
            slot.retire(completion: nil)
        }
    }

    // MARK: - Units of work

    /// Runs `body` with a pooled connection on that connection's thread.
    ///
    /// If `body` leaves a transaction open it is rolled back before the connection is reused.
    @discardableResult
    public func withConnection<T: Sendable>(_ body: @Sendable (PostgresConnection) throws -> T) async throws -> T {
        let slot = try await acquire()
        defer { release(slot) }
        try Task.checkCancellation()
        // The caller's trace goes with the work to the connection's thread (a task-local does not cross threads), so
        // the spans started there (a pipeline, a COMMIT) are children of the caller's.
        guard let context = InstrumentationContext.current else { return try await slot.run(body) }
        return try await slot.run { connection in
            try InstrumentationContext.withValue(context) { try body(connection) }
        }
    }

    /// Runs `body` in a transaction, retrying the whole transaction on serialization failure or deadlock.
    ///
    /// BEGIN (at `isolation`), body, COMMIT on one connection in one hop; ROLLBACK and rethrow on any error.
    /// On SQLSTATE 40001 or 40P01 (from the body or from COMMIT) the attempt is retried after a capped,
    /// jittered exponential backoff, up to `maxAttempts` attempts in all. `body` must therefore be safe
    /// to run more than once: keep side effects outside the database out of it.
    @discardableResult
    public func transaction<T: Sendable>(
        isolation: IsolationLevel = .readCommitted,
        maxAttempts: Int = 5,
        _ body: @Sendable (PostgresConnection) throws -> T
    ) async throws -> T {
        let attempts = max(1, maxAttempts)
        var attempt = 1
        while true {
            do {
                // One span per attempt: a retried transaction shows as two, the first with its error.
                let tried = attempt
                return try await PostgresSpan.traced("postgres.transaction") { span in
                    span.attributes["db.transaction.isolation"] = isolation.rawValue
                    span.attributes["db.transaction.attempt"] = tried
                } _: {
                    try await withConnection { connection in try connection.transaction(isolation: isolation, body) }
                }
            } catch let error as PostgresError where error.isRetryableTransactionFailure && attempt < attempts {
                let delay = Self.retryDelay(afterAttempt: attempt)
                logger.debug(
                    "retrying transaction",
                    metadata: [
                        "postgres.sqlstate": "\(error.sqlState?.rawValue ?? "")",
                        "postgres.attempt": "\(attempt)",
                        "postgres.retry_delay": "\(delay)",
                    ])
                try await Task.sleep(for: delay)
                attempt += 1
            }
        }
    }

    /// Runs one statement through the connection's prepared-statement cache.
    ///
    /// On Linux, once a connection has the statement prepared, the statement is sent from the calling task
    /// and its reply awaited on the readiness thread of its socket (`SocketReadiness`), with no hop to the
    /// connection's thread; the first use on a connection (open, prepare) goes through that thread.
    func query(cached statement: PostgresStatement, _ values: [PostgresValue]) async throws -> PostgresRows {
        #if os(Linux)
            if awaitsReadiness {
                let slot = try await acquire()
                defer { release(slot) }
                try Task.checkCancellation()
                let key = StatementCache.Key(sql: statement.sql, parameterTypes: values.map(\.dataType))
                if let rows = try await slot.queryWithoutHandOff(key, values: values) {
                    return rows
                }
                return try await slot.run { connection in try connection.query(cached: statement, values) }
            }
        #endif
        return try await withConnection { connection in try connection.query(cached: statement, values) }
    }

    /// Runs `query` through a pooled connection's prepared-statement cache.
    ///
    /// On Linux, once the connection has it prepared, the statement is sent from the calling task and its reply
    /// awaited on a readiness thread, with no hop to the connection's thread; the first use on a connection (open,
    /// prepare) goes through that thread. A statement that waits long in the server (a lock) holds its connection
    /// and nothing else: no thread waits for it.
    @discardableResult
    public func query(_ query: PostgresQuery) async throws -> PostgresRows {
        try await self.query(cached: PostgresStatement(query.sql), query.parameters)
    }

    /// `query(_:)` for a caller that is not a task (an event loop's channel handler): leases a
    /// connection, sends the statement from the thread that got the lease, and calls `completion` once with the
    /// rows or the error, on the socket's readiness thread (or the connection's, the first time a connection runs the
    /// statement, or the caller's when the pool refuses at once). The connection is back in the pool by then.
    ///
    /// For callers that can ask again another way when it fails: an idle connection is not probed before the
    /// statement, so one whose backend was terminated meanwhile fails it (`isConnectionError`) and is replaced.
    public func query(
        _ query: PostgresQuery, completion: @escaping @Sendable (Result<PostgresRows, any Error>) -> Void
    ) {
        let statement = PostgresStatement(query.sql)
        let values = query.parameters
        acquire { [self] leased in
            let slot: PooledConnection
            switch leased {
            case .failure(let error):
                completion(.failure(error))
                return
            case .success(let leasedSlot):
                slot = leasedSlot
            }
            let finish: @Sendable (Result<PostgresRows, any Error>) -> Void = { outcome in
                self.release(slot)
                completion(outcome)
            }
            #if os(Linux)
                if awaitsReadiness {
                    let key = StatementCache.Key(sql: statement.sql, parameterTypes: values.map(\.dataType))
                    let sent = slot.queryWithoutHandOff(key, values: values) { outcome in
                        switch outcome {
                        case .success(let rows?): finish(.success(rows))
                        case .success(nil): slot.run({ try $0.query(cached: statement, values) }, completion: finish)
                        case .failure(let error): finish(.failure(error))
                        }
                    }
                    if sent { return }
                }
            #endif
            slot.run({ try $0.query(cached: statement, values) }, completion: finish)
        }
    }

    /// Runs a multi-statement script without parameters (e.g. a migration).
    public func execute(script: String) async throws {
        try await withConnection { connection in try connection.execute(script: script) }
    }

    /// Sends a notification on a channel (`SELECT pg_notify($1, $2)`).
    public func notify(channel: String, payload: String) async throws {
        try await withConnection { connection in try connection.notify(channel: channel, payload: payload) }
    }

    // MARK: - Observability and lifecycle

    /// A snapshot of the pool's gauges and lifetime counters, for metrics.
    public var statistics: PostgresPoolStatistics {
        let snapshot = state.withLock { state in
            (leased: state.leased, idle: state.idle.count, waiters: state.waiters.count, slots: state.slotCount)
        }
        let opened = counters.connectionsOpened.load(ordering: .relaxed)
        let closed = counters.connectionsClosed.load(ordering: .relaxed)
        return PostgresPoolStatistics(
            maxConnections: maxConnections,
            openConnections: opened - closed,
            inUse: snapshot.leased,
            idle: snapshot.idle,
            waiters: snapshot.waiters,
            connectionsOpened: opened,
            connectionsClosed: closed,
            connectionsReplaced: counters.connectionsReplaced.load(ordering: .relaxed))
    }

    /// Stops the pool: fails waiting and future acquires, ends LISTEN streams, closes idle connections
    /// now and the others when released. Returns at once; `shutdown()` also waits for all to close.
    public func close() {
        let (idle, waiters, listeners) = state.withLock {
            state -> ([PooledConnection], [Handoff], [NotificationListener]) in
            state.isClosed = true
            let listeners = Array(state.listeners.values)
            let idle = state.idle
            let waiters = state.waiters.compactMap { waiter in
                defer { waiter.continuation = nil }
                return waiter.continuation
            }
            state.idle = []
            state.waiters = []
            return (idle, waiters, listeners)
        }
        for listener in listeners {
            listener.stop()
        }
        let closedError = PostgresError(.poolClosed, message: "the connection pool is shut down")
        for continuation in waiters {
            continuation.resume(throwing: closedError)
        }
        for slot in idle {
            retire(slot)
        }
        if !idle.isEmpty || !waiters.isEmpty {
            logger.debug("closing PostgreSQL pool", metadata: ["postgres.idle_closed": "\(idle.count)"])
        }
    }

    /// Closes the pool like `close()` and waits until every connection is closed.
    public func shutdown() async {
        close()
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let finished = state.withLock { state in
                if state.isFullyShutDown { return true }
                state.shutdownWaiters.append(continuation)
                return false
            }
            if finished {
                continuation.resume()
            }
        }
    }

    // MARK: - Acquire and release

    private enum AcquireOutcome {
        case failed(any Error)
        case reused(PooledConnection)
        case create(slotID: Int)
        case waiting
        /// Waiting, and no sweep was scheduled: schedule one at this deadline.
        case waitingFirst(deadline: UInt64)
    }

    private func acquire() async throws -> PooledConnection {
        let waiter = Waiter()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation {
                (continuation: CheckedContinuation<PooledConnection, any Error>) in
                acquire(waiter, .task(continuation))
            }
        } onCancel: {
            let continuation = state.withLock { state -> Handoff? in
                waiter.isCancelled = true
                guard let continuation = waiter.continuation else { return nil }
                waiter.continuation = nil
                state.waiters.removeAll { $0 === waiter }
                return continuation
            }
            continuation?.resume(throwing: CancellationError())
        }
    }

    /// Leases a connection without a task: `completion` gets it (or the pool's refusal) at once on the caller's
    /// thread when one is free, else on the thread that releases one (or the deadline sweep's). Not cancellable;
    /// the caller releases the slot with `release(_:)`.
    private func acquire(then completion: @escaping @Sendable (Result<PooledConnection, any Error>) -> Void) {
        acquire(Waiter(), .callback(completion))
    }

    private func acquire(_ waiter: Waiter, _ continuation: Handoff) {
        let outcome = state.withLock { state -> AcquireOutcome in
            if state.isClosed {
                return .failed(PostgresError(.poolClosed, message: "the connection pool is shut down"))
            }
            if waiter.isCancelled {
                return .failed(CancellationError())
            }
            if let slot = state.idle.popLast() {
                state.leased += 1
                return .reused(slot)
            }
            if state.slotCount < maxConnections {
                state.slotCount += 1
                state.leased += 1
                defer { state.nextSlotID += 1 }
                return .create(slotID: state.nextSlotID)
            }
            waiter.continuation = continuation
            waiter.deadline = Self.deadline(after: configuration.acquireTimeout, from: deadlineClock.now())
            state.waiters.append(waiter)
            if state.sweepScheduled { return .waiting }
            state.sweepScheduled = true
            return .waitingFirst(deadline: waiter.deadline)
        }
        switch outcome {
        case .failed(let error):
            continuation.resume(throwing: error)
        case .reused(let slot):
            continuation.resume(returning: slot)
        case .create(let slotID):
            continuation.resume(returning: makeSlot(id: slotID))
        case .waiting:
            break
        case .waitingFirst(let deadline):
            scheduleSweep(at: deadline)
        }
    }

    /// `now` (nanoseconds) plus `timeout`, saturating (a timeout of years is a wait without end).
    static func deadline(after timeout: Duration, from now: UInt64) -> UInt64 {
        let (seconds, attoseconds) = timeout.components
        let (whole, overflow) = UInt64(clamping: max(0, seconds)).multipliedReportingOverflow(by: 1_000_000_000)
        let fraction = UInt64(clamping: max(0, attoseconds) / 1_000_000_000)
        return saturatingSum(
            now, overflow ? UInt64.max : saturatingSum(whole, fraction))
    }

    private static func saturatingSum(_ a: UInt64, _ b: UInt64) -> UInt64 {
        let (sum, overflow) = a.addingReportingOverflow(b)
        return overflow ? UInt64.max : sum
    }

    private func scheduleSweep(at deadline: UInt64) {
        deadlineClock.schedule(deadline) { [weak self] in
            self?.sweepExpiredWaiters()
        }
    }

    /// Fails every waiter whose deadline has passed with `poolTimeout`, and schedules the next sweep at the
    /// earliest remaining deadline (none when nobody waits: the next waiter schedules one).
    private func sweepExpiredWaiters() {
        let now = deadlineClock.now()
        let (expired, next) = state.withLock {
            state -> ([Handoff], UInt64?) in
            var expired: [Handoff] = []
            state.waiters.removeAll { waiter in
                guard let continuation = waiter.continuation else { return true }
                guard waiter.deadline <= now else { return false }
                waiter.continuation = nil
                expired.append(continuation)
                return true
            }
            guard let next = state.waiters.lazy.map(\.deadline).min() else {
                state.sweepScheduled = false
                return (expired, nil)
            }
            return (expired, next)
        }
        if let next { scheduleSweep(at: next) }
        guard !expired.isEmpty else { return }
        let error = PostgresError(
            .poolTimeout,
            message:
                "no connection became free within \(configuration.acquireTimeout) (maxConnections: \(maxConnections))")
        for continuation in expired {
            continuation.resume(throwing: error)
        }
    }

    private enum ReleaseOutcome {
        case keptIdle
        case handedOver(Handoff)
        case retire
    }

    private func release(_ slot: PooledConnection) {
        let outcome = state.withLock { state -> ReleaseOutcome in
            state.leased -= 1
            if state.isClosed || slot.isBroken {
                return .retire
            }
            if let continuation = Self.popWaiter(&state) {
                state.leased += 1
                return .handedOver(continuation)
            }
            state.idle.append(slot)
            return .keptIdle
        }
        switch outcome {
        case .keptIdle:
            break
        case .handedOver(let continuation):
            continuation.resume(returning: slot)
        case .retire:
            retire(slot)
        }
    }

    private func retire(_ slot: PooledConnection) {
        slot.retire { [weak self] in
            self?.slotRetired()
        }
    }

    private func slotRetired() {
        let (replacement, shutdownWaiters) = state.withLock {
            state -> ((Int, Handoff)?, [CheckedContinuation<Void, Never>]) in
            state.slotCount -= 1
            // The freed place goes to the longest waiter as a fresh slot.
            if !state.isClosed, let continuation = Self.popWaiter(&state) {
                state.slotCount += 1
                state.leased += 1
                defer { state.nextSlotID += 1 }
                return ((state.nextSlotID, continuation), [])
            }
            return (nil, Self.takeShutdownWaitersIfDone(&state))
        }
        if let (slotID, continuation) = replacement {
            continuation.resume(returning: makeSlot(id: slotID))
        }
        for waiter in shutdownWaiters {
            waiter.resume()
        }
    }

    private static func takeShutdownWaitersIfDone(_ state: inout State) -> [CheckedContinuation<Void, Never>] {
        guard state.isFullyShutDown else { return [] }
        defer { state.shutdownWaiters = [] }
        return state.shutdownWaiters
    }

    /// Registers a LISTEN loop so `close()` can stop it; false if the pool is already closed.
    func register(_ listener: NotificationListener) -> Bool {
        state.withLock { state in
            guard !state.isClosed else { return false }
            state.listeners[ObjectIdentifier(listener)] = listener
            return true
        }
    }

    /// Called from a LISTEN loop's thread as it ends.
    func listenerFinished(_ listener: NotificationListener) {
        let shutdownWaiters = state.withLock { state in
            state.listeners[ObjectIdentifier(listener)] = nil
            return Self.takeShutdownWaitersIfDone(&state)
        }
        for waiter in shutdownWaiters {
            waiter.resume()
        }
    }

    private static func popWaiter(_ state: inout State) -> Handoff? {
        while !state.waiters.isEmpty {
            let waiter = state.waiters.removeFirst()
            if let continuation = waiter.continuation {
                waiter.continuation = nil
                return continuation
            }
        }
        return nil
    }

    private func makeSlot(id: Int) -> PooledConnection {
        PooledConnection(id: id, configuration: configuration, logger: logger, counters: counters)
    }

    /// Capped exponential backoff with jitter: 10 ms, 20 ms, 40 ms … up to 1 s, each scaled by 50–100 %.
    static func retryDelay(afterAttempt attempt: Int) -> Duration {
        let exponent = min(max(attempt - 1, 0), 16)
        let ceiling = min(10 * (1 << exponent), 1_000)
        let milliseconds = Int.random(in: (ceiling / 2)...ceiling)
        return .milliseconds(milliseconds)
    }
}
