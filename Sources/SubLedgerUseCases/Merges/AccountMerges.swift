import SubLedgerCore
import SubLedgerStore

/// Merging an app's accounts and listing their aliases (docs/guides/accounts.md, "Merging accounts"): the same rules
/// for the HTTP routes and the CLI. "Now" is the injected clock's.
public struct AccountMerges: Sendable {
    let store: AccountMergeStore
    let catalog: CatalogStore
    let now: @Sendable () -> Instant

    public init(store: AccountMergeStore, catalog: CatalogStore, now: @Sendable @escaping () -> Instant) {
        self.store = store
        self.catalog = catalog
        self.now = now
    }

    /// Merges account `from` into account `into` of the app `bundleID`, by `actor`. An unknown `from`, or one that
    /// holds nothing, is an empty move: its alias is recorded all the same, so what it submits later lands on
    /// `into`. Merging again what was merged into `into` already moves nothing (`merged` false).
    public func merge(bundleID: String?, into: String, from: String?, by actor: String) async throws
        -> AccountMergeMoves
    {
        let app = try await app(bundleID)
        let into = try Self.account(into)
        guard let from, !from.isEmpty else { throw MergeError(.missingFrom, "name the account to merge: from") }
        let source = try Self.account(from)
        do {
            try AccountMerge.check(from: source, into: into)
        } catch {
            throw MergeError(.mergeIntoSelf, "an account cannot be merged into itself")
        }
        do {
            return try await store.merge(source, into: into, app: app, actor: actor, now: now())
        } catch AccountMergeConflict.intoIsMerged(let target) {
            throw MergeError(
                .accountMerged, "the account was merged into '\(target.rawValue)': merge into that account")
        } catch AccountMergeConflict.fromMergedElsewhere(let target) {
            throw MergeError(.accountMerged, "from was merged into '\(target.rawValue)' already")
        }
    }

    /// The accounts merged into `account` in the app, oldest first.
    public func aliases(bundleID: String?, account: String) async throws -> [AccountAlias] {
        let app = try await app(bundleID)
        return try await store.aliases(of: try Self.account(account), app: app)
    }

    private func app(_ bundleID: String?) async throws -> StoredApp {
        guard let bundleID, !bundleID.isEmpty else { throw MergeError(.appRequired, "name the app: bundle_id") }
        guard IdentifierRule.bundleID.accepts(bundleID), let app = try await catalog.app(bundleID: bundleID) else {
            throw MergeError(.unknownApp, "no app has that bundle id")
        }
        return app
    }

    static func account(_ raw: String) throws -> AccountID {
        do {
            return try AccountID(raw)
        } catch {
            throw MergeError(.invalidAccountID, "\(error)")
        }
    }
}
