import SubLedgerCore
import SubLedgerStore

/// The stores this process speaks to, one port each: the one place a store is picked by `Store`.
public struct StorePorts: Sendable {
    /// The ports of the stores registered as modules (`StoreRegistry`), by store.
    public var registered: [Store: any StorePort]
    /// The ledger as the ports write it: with the stored inputs' retry policy they were configured with (the
    /// backoff and the attempts before quarantine, `StoredInputRetry`), which the renewal job records failures under.
    public var ledger: LedgerStore

    public init(ledger: LedgerStore, registered: [any StorePort] = []) {
        self.ledger = ledger
        var byStore: [Store: any StorePort] = [:]
        for port in registered { byStore[port.store] = port }
        self.registered = byStore
    }

    /// The port of every store `registry` holds, writing through `context`.
    public init(registry: StoreRegistry, context: StoreContext) {
        self.init(ledger: context.store, registered: registry.stores.compactMap { registry[$0]?.port(context) })
    }

    /// The port of `store`; throws `app_misconfigured` when this process is not configured for it.
    public func port(for store: Store) throws -> any StorePort {
        guard let port = registered[store] else {
            throw IngestionError(.appMisconfigured, "this process is not configured for \(store.displayName)")
        }
        return port
    }

    /// The port of `store`, if this process is configured for it.
    public func configuredPort(for store: Store) -> (any StorePort)? {
        registered[store]
    }

    /// Verifies and applies `submission` through its store's port.
    public func submit(_ submission: StoreSubmission, app: StoredApp) async throws -> SubmissionOutcome {
        try await port(for: submission.store).submit(submission, app: app)
    }

    /// Authenticates and applies `push` through its store's port.
    public func receive(_ push: StorePush) async throws -> PushOutcome {
        try await port(for: push.store).receive(push)
    }
}
