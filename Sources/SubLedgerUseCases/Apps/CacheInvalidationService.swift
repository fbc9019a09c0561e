import Logging
import PostgresLibPQ
import ServiceLifecycle

/// Listens for NOTIFY on the cache channels and drops the matching caches, so several `serve` processes on
/// one database behave as one. Reconnects are the pool's listener's job; after one, caches are dropped too,
/// since notifications may have been missed meanwhile.
package struct CacheInvalidationService: Service {
    let pool: PostgresPool
    let apps: AppDirectory
    let keys: APIKeys
    let logger: Logger

    package init(pool: PostgresPool, apps: AppDirectory, keys: APIKeys, logger: Logger) {
        self.pool = pool
        self.apps = apps
        self.keys = keys
        self.logger = logger
    }

    package func run() async throws {
        await withTaskGroup(of: Void.self) { group in
            group.addTask { await listen(AppDirectory.channel) { apps.invalidate() } }
            group.addTask { await listen(APIKeys.channel) { keys.invalidate() } }
            await group.waitForAll()
        }
    }

    private func listen(_ channel: String, _ invalidate: @escaping @Sendable () -> Void) async {
        while !Task.isCancelled && !Task.isShuttingDownGracefully {
            do {
                let notifications = try await pool.listen(channel: channel)
                invalidate()
                for try await _ in notifications.cancelOnGracefulShutdown() { invalidate() }
            } catch {
                if Task.isCancelled || Task.isShuttingDownGracefully { return }
                logger.warning(
                    "cache invalidation listener failed; retrying",
                    metadata: ["channel": "\(channel)", "error": "\(error)"])
                invalidate()
                try? await Task.sleep(for: .seconds(2))
            }
        }
    }
}
