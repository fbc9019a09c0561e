/// An in-memory ledger that applies inputs through `Ledger.apply`: the reference model for tests and an
/// oracle for the storage layer's own tests.
///
/// It plays the storage layer's part exactly: loads the touched chains, the tokens and orders, calls the pure
/// function, then stores the decision (entries insert-if-absent by idempotency key).
public struct LedgerState: Hashable, Sendable, Codable {
    public var catalog: Catalog
    public private(set) var chains: [ChainKey: ChainSnapshot] = [:]
    /// Every entry, by idempotency key (first insert wins, as with `ON CONFLICT DO NOTHING`).
    public private(set) var entries: [String: LedgerEntry] = [:]
    public private(set) var orders: [OrderID: Order] = [:]
    /// Tokens (per app) that name accounts, as the service registers them.
    public private(set) var accountsByToken: [String: [AccountToken: AccountID]] = [:]

    public init(catalog: Catalog) {
        self.catalog = catalog
    }

    /// Records that `token` names `account` in app `bundleID`.
    public mutating func register(_ token: AccountToken, for account: AccountID, bundleID: String) {
        accountsByToken[bundleID, default: [:]][token] = account
    }

    /// Stores a new order (pending), or replaces one with the same id.
    public mutating func place(_ order: Order) {
        orders[order.id] = order
    }

    /// Applies `input` at `now` and stores the decision; throws for an unconfigured app.
    @discardableResult
    public mutating func apply(_ input: LedgerInput, now: Instant) throws(LedgerError) -> LedgerDecision {
        guard let app = catalog.app(bundleID: input.bundleID) else {
            throw LedgerError(code: .unknownBundleID, subject: input.bundleID)
        }
        let snapshot = LedgerSnapshot(
            chains: input.chainKeys.compactMap { chains[$0] },
            accountsByToken: accountsByToken[app.bundleID] ?? [:],
            orders: orders.keys.sorted().compactMap { orders[$0] }
        )
        let decision = try Ledger.apply(input, to: snapshot, app: app, now: now)
        for chain in decision.updatedChains { chains[chain.key] = chain }
        for entry in decision.entries where entries[entry.idempotencyKey] == nil {
            entries[entry.idempotencyKey] = entry
        }
        for order in decision.fulfilledOrders { orders[order.id] = order }
        return decision
    }

    /// `account`'s entitlements in app `bundleID` at `instant` (see `Ledger.entitlements`).
    public func entitlements(
        for account: AccountID,
        bundleID: String,
        at instant: Instant,
        environment: StoreEnvironment? = nil
    ) -> [Entitlement] {
        guard let app = catalog.app(bundleID: bundleID) else { return [] }
        return Ledger.entitlements(
            for: account, at: instant, chains: chains.keys.sorted().compactMap { chains[$0] }, app: app,
            environment: environment)
    }

    /// `account`'s consumable credits in app `bundleID` at `instant`.
    public func creditBalance(for account: AccountID, bundleID: String, at instant: Instant) -> Int64 {
        Ledger.creditBalance(for: account, bundleID: bundleID, at: instant, entries: entries.values)
    }
}
