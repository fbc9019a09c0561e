import Logging
import PostgresLibPQ
import ServiceLifecycle
import SubLedgerStore
import Synchronization

/// The hot standbys that answer reads while their measured replay lag is within the bound, and the primary
/// that answers otherwise (docs/guides/scale-out.md, "Read replicas").
///
/// A `Service`: while it runs, it measures each standby's lag (`ReplicaLagTracker`) every
/// `monitorInterval` on connections of its own, so a saturated read pool cannot delay the measure; when it
/// stops, it closes the standbys' pools (it runs beside the HTTP server, which drains first).
public final class ReadReplicas: Service, Sendable {
    public let configuration: ReadReplicaConfiguration
    let primary: LedgerStore
    let standbys: [Standby]
    /// One connection to the primary, for its WAL position.
    private let primaryMonitor: PostgresPool
    private let tracker: Mutex<ReplicaLagTracker>
    /// Which standbys a read waiting for a token is refreshing now (one refresh at a time per standby).
    private let refreshing: Mutex<Set<Int>>
    let metrics: ReadMetrics
    private let logger: Logger

    struct Standby: Sendable {
        let label: String
        /// Reads run on this store's pool.
        let store: LedgerStore
        /// The lag is measured on this one (two connections: the monitor and a read waiting for a token).
        let monitor: PostgresPool
    }

    /// Opens (lazily) a pool per standby that `configuration.url` names, and one connection's pool to the
    /// primary of `primary`.
    public init(configuration: ReadReplicaConfiguration, primary: LedgerStore, logger: Logger) throws {
        self.configuration = configuration
        self.primary = primary
        self.logger = logger
        standbys = try configuration.standbys().map { label, readConfiguration in
            var monitorConfiguration = readConfiguration
            monitorConfiguration.maxConnections = 2
            monitorConfiguration.acquireTimeout = .seconds(1)
            return Standby(
                label: label,
                store: LedgerStore(pool: PostgresPool(configuration: readConfiguration, logger: logger)),
                monitor: PostgresPool(configuration: monitorConfiguration, logger: logger))
        }
        var primaryConfiguration = primary.pool.configuration
        primaryConfiguration.maxConnections = 1
        primaryConfiguration.acquireTimeout = .seconds(1)
        primaryMonitor = PostgresPool(configuration: primaryConfiguration, logger: logger)
        tracker = Mutex(ReplicaLagTracker(standbyCount: standbys.count))
        refreshing = Mutex([])
        ServiceMetrics.bootstrap()
        metrics = ReadMetrics(standbyLabels: standbys.map(\.label))
    }

    /// Where a read goes.
    enum Route: Sendable, Equatable {
        case standby(Int, ReadMetrics.Reason)
        case primary(ReadMetrics.Reason)
    }

    /// The standby that may answer a read now (one that must see `token` if given: waiting up to
    /// `tokenWait` for one within the bound to replay it), or the primary.
    func route(token: WALPosition?) async -> Route {
        let maximumLag = configuration.maximumLag
        if let index = tracker.withLock({ $0.choose(now: .now, maximumLag: maximumLag, token: token) }) {
            return .standby(index, token == nil ? .withinLagBound : .tokenReplayed)
        }
        guard let token else { return .primary(.replicaLagging) }
        let deadline = ContinuousClock.now + configuration.tokenWait
        while true {
            let current = tracker.withLock { $0.current(now: .now, maximumLag: maximumLag) }
            if current.isEmpty { return .primary(.replicaLagging) }
            for index in current { await refresh(index) }
            if let index = tracker.withLock({ $0.choose(now: .now, maximumLag: maximumLag, token: token) }) {
                return .standby(index, .tokenReplayed)
            }
            if ContinuousClock.now >= deadline { return .primary(.tokenNotReplayed) }
            try? await Task.sleep(for: .milliseconds(5))
        }
    }

    /// Reads standby `index`'s replay position now, unless another read is already doing so.
    private func refresh(_ index: Int) async {
        guard refreshing.withLock({ $0.insert(index).inserted }) else { return }
        defer { _ = refreshing.withLock { $0.remove(index) } }
        if let reading = try? await ReplicationPositions.standby(on: standbys[index].monitor) {
            tracker.withLock { $0.recordStandby(index, reading) }
        }
    }

    /// Runs `body` on a standby's store when one may answer, else on the primary's; a standby that fails the
    /// read (its connection lost, a query cancelled by a conflict with recovery) is answered for by the primary.
    package func read<T: Sendable>(token: WALPosition?, _ body: @Sendable (LedgerStore) async throws -> T) async throws
        -> T
    {
        switch await route(token: token) {
        case .primary(let reason):
            metrics.count(reason)
            return try await body(primary)
        case .standby(let index, let reason):
            do {
                let result = try await body(standbys[index].store)
                metrics.count(reason)
                return result
            } catch let error as PostgresError where Self.isStandbyFailure(error) {
                logger.warning(
                    "a read replica failed a read; the primary answers it",
                    metadata: ["replica": "\(standbys[index].label)", "error": "\(error)"])
                metrics.count(.replicaFailed)
                return try await body(primary)
            }
        }
    }

    /// Failures of the standby rather than of the read: the primary may well answer.
    static func isStandbyFailure(_ error: PostgresError) -> Bool {
        if error.isConnectionError || error.kind == .poolTimeout || error.kind == .poolClosed { return true }
        // 40001 is how a hot standby cancels a query that conflicts with replay; 57P01..57P03: shutting down,
        // cannot connect now (a standby starting up).
        guard let state = error.sqlState?.rawValue else { return false }
        return state == "40001" || state.hasPrefix("57P")
    }

    /// Measures one round: the primary's position first (stamped with the time its query was sent), then every
    /// standby's replay position.
    func measure() async {
        let sentAt = ContinuousClock.now
        do {
            let position = try await ReplicationPositions.primary(on: primaryMonitor)
            tracker.withLock { $0.recordPrimary(position, sentAt: sentAt) }
        } catch {
            logger.debug("could not read the primary's WAL position", metadata: ["error": "\(error)"])
        }
        await withTaskGroup(of: Void.self) { group in
            for index in standbys.indices {
                group.addTask {
                    do {
                        let reading = try await ReplicationPositions.standby(on: self.standbys[index].monitor)
                        self.tracker.withLock { $0.recordStandby(index, reading) }
                    } catch {
                        self.logger.debug(
                            "could not read a replica's replay position",
                            metadata: ["replica": "\(self.standbys[index].label)", "error": "\(error)"])
                    }
                }
            }
        }
        let now = ContinuousClock.now
        let lags = tracker.withLock { tracker in standbys.indices.map { tracker.lag(of: $0, now: now) } }
        for (index, lag) in lags.enumerated() { metrics.recordLag(lag, of: index) }
    }

    /// The measured lag of each standby now (`nil`: unknown), by label.
    public func lags() -> [(label: String, lag: Duration?)] {
        let now = ContinuousClock.now
        return tracker.withLock { tracker in
            standbys.indices.map { (standbys[$0].label, tracker.lag(of: $0, now: now)) }
        }
    }

    /// Measures every `monitorInterval` until shutdown, then closes the pools.
    public func run() async throws {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            await measure()
            try? await Task.sleep(for: configuration.monitorInterval)
        }
        await shutdown()
    }

    /// Closes every pool this value opened.
    public func shutdown() async {
        for standby in standbys {
            await standby.store.pool.shutdown()
            await standby.monitor.shutdown()
        }
        await primaryMonitor.shutdown()
    }
}
