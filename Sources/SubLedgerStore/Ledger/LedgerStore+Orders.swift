import Foundation
import PostgresLibPQ
import SubLedgerCore

extension LedgerStore {
    /// Creates a pending order for `account` to buy `productID`. Its id (a random UUID, unguessable) is the
    /// app account token the app passes to StoreKit, which is how the purchase finds its way back.
    public func createOrder(account: AccountID, productID: String, app: StoredApp, now: Instant) async throws -> Order {
        guard app.definition.product(productID) != nil else {
            throw StoreError(
                code: .unknownProduct, message: "product '\(productID)' is not in the catalog of \(app.bundleID)")
        }
        let id = try OrderID(UUID().uuidString.lowercased())
        return try await pool.transaction { connection in
            try AccountRows.ensure([account], app: app, on: connection)
            let rows = try connection.query(
                """
                INSERT INTO orders (order_id, app_id, account_id, product_id, created_at)
                VALUES (\(id.rawValue)::uuid, \(app.appID), \(account.rawValue), \(productID), \(timestamp(now)))
                RETURNING order_id::text, account_id, product_id, \(milliseconds("created_at")), state,
                    fulfilled_transaction_id
                """)
            return try OrderRows.order(from: rows.single(), bundleID: app.bundleID)
        }
    }

    /// The order with `id` of `app`, if any.
    public func order(_ id: OrderID, app: StoredApp) async throws -> Order? {
        try await pool.withConnection { connection in
            let rows = try connection.query(
                """
                SELECT order_id::text, account_id, product_id, \(milliseconds("created_at")), state,
                    fulfilled_transaction_id
                FROM orders WHERE app_id = \(app.appID) AND order_id = \(id.rawValue)::uuid
                """)
            return try rows.first.map { try OrderRows.order(from: $0, bundleID: app.bundleID) }
        }
    }
}
