import SubLedgerCore
import SubLedgerStore

/// Erasing an app's account (docs/guides/accounts.md, "Erasing an account"): the same rules for the HTTP route and
/// the CLI. "Now" is the injected clock's.
public struct AccountErasures: Sendable {
    let store: AccountErasureStore
    let catalog: CatalogStore
    let now: @Sendable () -> Instant

    public init(store: AccountErasureStore, catalog: CatalogStore, now: @Sendable @escaping () -> Instant) {
        self.store = store
        self.catalog = catalog
        self.now = now
    }

    /// Erases `account` of the app `bundleID`, by `actor`: refused when the account was erased before, or no row
    /// of the app names it.
    public func erase(bundleID: String?, account: String, by actor: String) async throws -> AccountErasure {
        guard let bundleID, !bundleID.isEmpty else { throw ErasureError(.appRequired, "name the app: bundle_id") }
        guard IdentifierRule.bundleID.accepts(bundleID), let app = try await catalog.app(bundleID: bundleID) else {
            throw ErasureError(.unknownApp, "no app has that bundle id")
        }
        let id: AccountID
        do {
            id = try AccountID(account)
        } catch {
            throw ErasureError(.invalidAccountID, "\(error)")
        }
        do {
            return try await store.erase(id, app: app, actor: actor, now: now())
        } catch let conflict as AccountErasureConflict {
            throw ErasureError(conflict)
        }
    }

    /// Whether `account` of the app was erased.
    public func isErased(_ account: AccountID, app: StoredApp) async throws -> Bool {
        try await store.isErased(account, app: app)
    }
}

extension AccountErasures {
    /// Why the ledger refused a write that names an erased account, or an erasure that meets a write in flight
    /// (`ErasureError(_:)` says it as an API error).
    public typealias Conflict = AccountErasureConflict
}
