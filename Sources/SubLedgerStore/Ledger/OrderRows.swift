import Foundation
import PostgresLibPQ
import SubLedgerCore

/// The `orders` table: an account's intent to buy a product, matched to Apple's transactions.
enum OrderRows {
    /// Orders named by `tokens`, and the submitter's pending orders (the empty-token fallback), locked.
    static func candidates(
        tokens: [AccountToken], submitter: AccountID?, appID: Int64, app: App, on connection: PostgresConnection
    ) throws -> [Order] {
        try connection.run { try candidates(tokens: tokens, submitter: submitter, appID: appID, app: app, into: &$0) }
    }

    /// `candidates`'s statement, appended to `batch`.
    static func candidates(
        tokens: [AccountToken], submitter: AccountID?, appID: Int64, app: App, into batch: inout PostgresBatch
    ) throws -> Batched<[Order]> {
        let orderIDs = tokens.compactMap { try? OrderID($0.rawValue) }.map(\.rawValue)
        guard !orderIDs.isEmpty || submitter != nil else { return .constant([]) }
        let index = batch.append(
            candidates(orderIDs: try StoreJSON.encode(orderIDs), submitter: submitter?.rawValue, appID: appID))
        return Batched { rows in try rows[index].map { try order(from: $0, bundleID: app.bundleID) } }
    }

    /// The orders of `appID` whose ids are in the JSON array `orderIDs`, and `submitter`'s pending orders, locked.
    static func candidates(orderIDs: String, submitter: String?, appID: Int64) -> PostgresQuery {
        """
        SELECT order_id::text, account_id, product_id, \(milliseconds("created_at")), state, fulfilled_transaction_id
        FROM orders
        WHERE app_id = \(appID) AND (order_id::text IN (SELECT jsonb_array_elements_text(\(orderIDs)::jsonb))
                               OR (state = 'pending' AND account_id = \(submitter)))
        ORDER BY order_id FOR UPDATE
        """
    }

    static func fulfil(
        _ orderID: String, by transactionID: String?, environment: StoreEnvironment, at now: Instant, appID: Int64
    ) -> PostgresQuery {
        """
        UPDATE orders SET state = 'fulfilled', fulfilled_transaction_id = \(transactionID),
            environment = \(environment.rawValue), fulfilled_at = coalesce(fulfilled_at, \(timestamp(now)))
        WHERE app_id = \(appID) AND order_id = \(orderID)::uuid
          AND fulfilled_transaction_id IS DISTINCT FROM \(transactionID)
        """
    }

    static func order(from row: PostgresRow, bundleID: String) throws -> Order {
        let rawState = try row.decode(String.self, at: 4)
        return Order(
            id: try storedOrderID(row.decode(String.self, at: 0)),
            account: try storedAccount(row.decode(String.self, at: 1)),
            productID: try row.decode(String.self, at: 2),
            bundleID: bundleID,
            createdAt: Instant(millisecondsSince1970: try row.decode(Int64.self, at: 3)),
            state: rawState == "fulfilled" ? .fulfilled : .pending,
            fulfilledBy: try row.decode(String?.self, at: 5))
    }

    /// Records the decision's fulfilled orders (an order may be re-pointed to an earlier purchase of its chain).
    static func fulfil(
        _ orders: [Order], appID: Int64, environment: StoreEnvironment, now: Instant,
        on connection: PostgresConnection
    ) throws {
        try connection.run { fulfil(orders, appID: appID, environment: environment, now: now, into: &$0) }
    }

    /// `fulfil`'s statements, appended to `batch`.
    static func fulfil(
        _ orders: [Order], appID: Int64, environment: StoreEnvironment, now: Instant, into batch: inout PostgresBatch
    ) -> Batched<Void> {
        for order in orders where order.state == .fulfilled {
            batch.append(
                fulfil(order.id.rawValue, by: order.fulfilledBy, environment: environment, at: now, appID: appID))
        }
        return .none
    }
}

func storedOrderID(_ raw: String) throws -> OrderID {
    do {
        return try OrderID(raw)
    } catch {
        throw StoreError(code: .corruptRow, message: "a stored order id is not valid")
    }
}
