import SubLedgerCore
import SubLedgerStore

/// Orders (`POST /v1/orders`): an account's intent to buy a product, whose id a later submission names so that
/// the purchase is matched to the order.
public struct Orders: Sendable {
    let store: LedgerStore

    public init(store: LedgerStore) {
        self.store = store
    }

    /// Records an order of `productID` by `account`; the product must be one of `app`'s.
    public func create(account: AccountID, productID: String, app: AppDirectory.App, now: Instant) async throws
        -> Order
    {
        try await store.createOrder(account: account, productID: productID, app: app, now: now)
    }

    /// The order `id` of `app`; nil when there is none.
    public func order(_ id: OrderID, app: AppDirectory.App) async throws -> Order? {
        try await store.order(id, app: app)
    }
}
