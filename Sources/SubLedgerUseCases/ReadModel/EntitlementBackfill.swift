import Logging
import ServiceLifecycle
import SubLedgerCore
import SubLedgerStore

/// Completes the entitlement read model of a database that was filled before it existed (schema step 13 lists
/// every account with a chain in `account_entitlement_backfill`): part of `subledger poll`, so that reads never
/// write. Until an account is backfilled its reads are answered from its chains, with the same answer.
///
/// Each account is backfilled in a transaction of its own under its chains' locks (`LedgerStore.apply`'s), so
/// an apply runs before or after it; any number of pollers may run it, a repeat of an account rewrites the same
/// rows. With nothing listed a cycle is one query per app.
public struct EntitlementBackfill: Service {
    /// How the job runs.
    public struct Configuration: Sendable {
        /// Accounts backfilled per app and batch. Default 500.
        public var batchSize = 500
        /// Pause between cycles when looping. Default 60 s.
        public var interval: Duration = .seconds(60)
        /// Run one cycle and return (for cron, `poll --once`).
        public var once = false

        public init() {}
    }

    let configuration: Configuration
    /// The apps whose accounts are backfilled.
    let catalog: CatalogStore
    let readModel: EntitlementReadStore
    let logger: Logger

    public init(
        configuration: Configuration, catalog: CatalogStore, readModel: EntitlementReadStore, logger: Logger
    ) {
        self.configuration = configuration
        self.catalog = catalog
        self.readModel = readModel
        self.logger = logger
    }

    public func run() async throws {
        try await PeriodicCycles.run(
            once: configuration.once, interval: configuration.interval, logger: logger,
            failure: "entitlement backfill cycle failed"
        ) {
            let done = try await runCycle()
            if done > 0 { logger.info("entitlement read model: backfilled \(done) accounts") }
        }
    }

    /// Backfills every listed account of every app; returns how many.
    public func runCycle() async throws -> Int {
        var done = 0
        for app in try await catalog.apps() {
            while !Task.isCancelled {
                let batch = try await readModel.backfill(app: app, limit: configuration.batchSize)
                done += batch
                if batch < configuration.batchSize { break }
            }
        }
        return done
    }
}
