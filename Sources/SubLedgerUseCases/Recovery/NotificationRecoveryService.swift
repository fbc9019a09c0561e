import Logging
import PostgresLibPQ
import ServiceLifecycle
import SubLedgerCore
import SubLedgerStore

/// Runs `NotificationRecovery` when it starts and every `interval` after, until graceful shutdown (`once`:
/// a single run). A run that fails is logged and counted; the next one tries again from the cursor.
public struct NotificationRecoveryService: Service {
    let recovery: NotificationRecovery
    let once: Bool
    let logger: Logger

    public init(recovery: NotificationRecovery, once: Bool = false, logger: Logger) {
        self.recovery = recovery
        self.once = once
        self.logger = logger
    }

    /// The service of `subledger poll`: recovery of `catalog`'s apps on `pool` through `ingestion`, on the
    /// system clock.
    public init(
        configuration: NotificationRecovery.Configuration, pool: PostgresPool, catalog: CatalogStore,
        ingestion: Ingestion, once: Bool, logger: Logger
    ) {
        var configuration = configuration
        // `poll --once` ends the group when its cycle is done; the recovery finishes its run all the same.
        if once { configuration.finishOnShutdown = true }
        self.init(
            recovery: NotificationRecovery(
                configuration: configuration, cursors: NotificationHistoryCursors(pool: pool), catalog: catalog,
                ingestion: ingestion,
                logger: logger, now: { Instant.systemNow() }),
            once: once, logger: logger)
    }

    public func run() async throws {
        while !Task.isCancelled {
            do {
                let report = try await recovery.run()
                logger.info("notification recovery: \(report)")
            } catch {
                logger.error("notification recovery failed", metadata: ["error": "\(error)"])
            }
            if once || Task.isShuttingDownGracefully { return }
            do {
                try await cancelWhenGracefulShutdown { try await Task.sleep(for: recovery.configuration.interval) }
            } catch {
                return
            }
        }
    }
}
