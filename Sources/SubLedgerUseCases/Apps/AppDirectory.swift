import PostgresLibPQ
import SubLedgerStore
import Synchronization

/// The configured apps, cached in memory and dropped whenever any process applies a catalog (NOTIFY).
public final class AppDirectory: Sendable {
    static let channel = "subledger_catalog"

    let catalog: CatalogStore
    private let byBundleID = Mutex<[String: StoredApp]>([:])
    private let byAppID = Mutex<[Int64: StoredApp]>([:])
    private let invalidations = Atomic<Int>(0)

    public init(catalog: CatalogStore) {
        self.catalog = catalog
    }

    /// The app with `bundleID`, or `nil` when none is configured.
    public func app(bundleID: String) async throws -> StoredApp? {
        if let cached = byBundleID.withLock({ $0[bundleID] }) { return cached }
        guard let app = try await catalog.app(bundleID: bundleID) else { return nil }
        remember(app)
        return app
    }

    /// The app an app-scoped key belongs to.
    package func app(for key: AuthenticatedKey) async throws -> StoredApp {
        guard let appID = key.appID, let bundleID = key.bundleID else {
            throw APIKeyError.appKeyRequired
        }
        if let cached = byAppID.withLock({ $0[appID] }) { return cached }
        guard let app = try await self.app(bundleID: bundleID) else {
            throw APIKeyError.keyAppRemoved
        }
        return app
    }

    /// The app an app-scoped key belongs to if it is cached, without asking the database (`app(for:)` asks).
    package func cachedApp(for key: AuthenticatedKey) -> StoredApp? {
        guard let appID = key.appID else { return nil }
        return byAppID.withLock { $0[appID] }
    }

    private func remember(_ app: StoredApp) {
        byBundleID.withLock { $0[app.bundleID] = app }
        byAppID.withLock { $0[app.appID] = app }
    }

    /// How many times the cache was dropped (`invalidate`): an app from `cachedApp(for:)` taken before a change
    /// of this number is no longer to be trusted. Read it before asking.
    package var generation: Int { invalidations.load(ordering: .acquiring) }

    /// Drops every cached app (a catalog was applied somewhere).
    func invalidate() {
        byBundleID.withLock { $0.removeAll() }
        byAppID.withLock { $0.removeAll() }
        // After the clearing: a reader that saw the old number looked before it, or finds the cache empty.
        invalidations.add(1, ordering: .releasing)
    }
}

extension AppDirectory {
    /// An app as the directory answers it: its catalog entry, its definition and its ids.
    public typealias App = StoredApp
}
