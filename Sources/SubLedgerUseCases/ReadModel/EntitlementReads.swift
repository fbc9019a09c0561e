import SubLedgerCore
import SubLedgerStore

/// The entitlement read the HTTP edge answers on its event loops: what an account holds now and its credit
/// balance, from the read model, its answer handed to a completion on the pool's readiness thread.
///
/// A thin value over `EntitlementReadStore`, inlined into its caller, so the fast path pays no call, allocation or
/// hop for going through the use case.
public struct EntitlementReads: Sendable {
    @usableFromInline let store: EntitlementReadStore

    public init(store: EntitlementReadStore) {
        self.store = store
    }

    /// What `account` holds of `app` at `instant` and its credits; nil when the read model cannot answer it (the
    /// caller then reads through the router). `completion` runs on the pool's thread, never on the caller's.
    @inlinable
    public func readFromModel(
        of account: AccountID, app: AppDirectory.App, at instant: Instant,
        completion: @escaping @Sendable (Result<(entitlements: [Entitlement], credits: Int64)?, any Error>) -> Void
    ) {
        store.readFromModel(of: account, app: app, at: instant, completion: completion)
    }
}
