/// Matching arriving transactions to the orders they fulfil.
public enum OrderMatching {
    /// The order of `app` whose id is `token`, if any.
    public static func order(namedBy token: AccountToken, in ordersByID: [OrderID: Order], app: App) -> Order? {
        guard let id = try? OrderID(token.rawValue), let order = ordersByID[id], order.bundleID == app.bundleID
        else { return nil }
        return order
    }

    /// How long before a purchase an order may have been created and still be matched by the fallback.
    public static let fallbackWindowMilliseconds: Int64 = 86_400_000

    /// The order that `transaction`, just granted to `account` on `chain`, fulfils; `nil` when none.
    ///
    /// 1. A token of the transaction names an order of `account` (any product: the order named it). The order
    ///    is fulfilled by the earliest purchase on the chain carrying its token: renewals inherit the token,
    ///    so when a renewal arrived first, the purchase re-points `fulfilledBy` (the order stays fulfilled).
    /// 2. Fallback, only when no token names an order (Apple sometimes drops `applicationUsername`) and
    ///    `account` itself submitted the input: `account`'s oldest pending order (by `createdAt`, then id) for
    ///    the same product and app, created within `fallbackWindowMilliseconds` before the purchase. This one
    ///    is first come, first served.
    public static func orderFulfilled(
        by transaction: Transaction,
        grantedTo account: AccountID,
        on chain: ChainSnapshot,
        submitter: AccountID?,
        ordersByID: [OrderID: Order],
        app: App
    ) -> OrderID? {
        let named = AccountToken.tokens(of: transaction).compactMap { order(namedBy: $0, in: ordersByID, app: app) }
        if let order = named.first {
            guard order.account == account else { return nil }
            guard let current = order.fulfilledBy else { return order.id }
            guard let holder = chain.transaction(current)?.transaction else { return nil }
            let isEarlier =
                (transaction.purchaseDate, transaction.transactionID) < (holder.purchaseDate, holder.transactionID)
            return isEarlier ? order.id : nil
        }
        guard submitter == account else { return nil }
        return
            ordersByID.values
            .filter {
                $0.state == .pending && $0.account == account && $0.bundleID == app.bundleID
                    && $0.productID == transaction.productID && $0.createdAt <= transaction.purchaseDate
                    && $0.createdAt.adding(milliseconds: fallbackWindowMilliseconds) >= transaction.purchaseDate
            }
            .min { ($0.createdAt, $0.id) < ($1.createdAt, $1.id) }?
            .id
    }
}

extension Order {
    /// This order, fulfilled by `transactionID`.
    public func fulfilled(by transactionID: String) -> Order {
        var order = self
        order.state = .fulfilled
        order.fulfilledBy = transactionID
        return order
    }
}
