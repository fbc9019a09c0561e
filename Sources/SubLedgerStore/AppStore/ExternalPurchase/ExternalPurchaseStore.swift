import Foundation
import PostgresLibPQ
import SubLedgerCore

/// External purchase tokens and their reports (schema step 51): the token taken with a web order, the reports the
/// obligation sender sends, what became of each.
public struct ExternalPurchaseStore: Sendable {
    public let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// Creates a pending order for `account` to buy `productID` with the external purchase token the app handed
    /// over, in one transaction: throws `ExternalPurchaseTokenTaken` (and records nothing) when the token came with
    /// another order before.
    public func createOrder(
        account: AccountID, productID: String, token: ExternalPurchaseTokenRecord, app: StoredApp, now: Instant
    ) async throws -> Order {
        guard app.definition.product(productID) != nil else {
            throw StoreError(
                code: .unknownProduct, message: "product '\(productID)' is not in the catalog of \(app.bundleID)")
        }
        let id = try OrderID(UUID().uuidString.lowercased())
        return try await pool.transaction { connection in
            let recorded = try connection.query(
                """
                INSERT INTO external_purchase_tokens (app_id, environment, external_purchase_id, token_type,
                    token_created_at, order_id, recorded_at)
                VALUES (\(app.appID), \(token.environment.rawValue), \(token.externalPurchaseID), \(token.tokenType),
                    \(timestamp(token.createdAt)), \(id.rawValue)::uuid, \(timestamp(now)))
                ON CONFLICT (app_id, external_purchase_id) DO NOTHING
                RETURNING token_id
                """)
            guard !recorded.isEmpty else { throw ExternalPurchaseTokenTaken() }
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

    /// The report `reportID` with its line items, each with the facts of its transaction; nil when there is none.
    public func report(_ reportID: Int64) async throws -> StoredExternalPurchaseReport? {
        try await pool.withConnection { connection in
            guard
                let head = try connection.query(
                    """
                    SELECT r.request_identifier::text, k.external_purchase_id, r.status, r.state, r.token_id,
                        EXISTS (SELECT 1 FROM external_purchase_reports e
                                WHERE e.token_id = r.token_id AND e.report_id < r.report_id AND e.state = 'pending')
                    FROM external_purchase_reports r JOIN external_purchase_tokens k ON k.token_id = r.token_id
                    WHERE r.report_id = \(reportID)
                    """
                ).first
            else { return nil }
            let tokenID = try head.decode(Int64.self, at: 4)
            let items = try Self.lineItems(ofToken: tokenID, on: connection)
            return StoredExternalPurchaseReport(
                reportID: reportID, requestIdentifier: try head.decode(String.self, at: 0),
                externalPurchaseID: try head.decode(String.self, at: 1), status: try head.decode(String.self, at: 2),
                state: try head.decode(String.self, at: 3), waitsForEarlierReport: try head.decode(Bool.self, at: 5),
                lineItems: items.filter { $0.reportID == reportID }.map(\.item))
        }
    }

    /// Every line item of token `tokenID`, oldest transaction first, with what Apple's line items reference: a
    /// refund its purchase's, a renewal the first purchase's (the chain's `SUBSCRIPTION_START`).
    static func lineItems(ofToken tokenID: Int64, on connection: PostgresConnection) throws -> [(
        reportID: Int64?, item: StoredExternalPurchaseReport.LineItem
    )] {
        let rows = try connection.query(
            """
            SELECT l.report_id, l.line_item_id::text, l.event_type, l.transaction_id, l.product_id,
                l.period_start_ms, l.period_end_ms, l.occurred_ms, l.price_milliunits, l.currency, l.tax_milliunits
            FROM external_purchase_line_items l
            WHERE l.token_id = \(tokenID)
            ORDER BY l.period_start_ms, l.transaction_id, l.event_type
            """)
        var decoded: [(reportID: Int64?, item: StoredExternalPurchaseReport.LineItem)] = []
        var firstBuy: String?
        var buys: [String: String] = [:]
        var paidDays: Int64 = 0
        for row in rows {
            let event = try row.decode(String.self, at: 2)
            let transactionID = try row.decode(String.self, at: 3)
            let lineItemID = try row.decode(String.self, at: 1)
            let start = Instant(millisecondsSince1970: try row.decode(Int64.self, at: 5))
            let end = try row.decode(Int64?.self, at: 6).map { Instant(millisecondsSince1970: $0) }
            let refunded = Instant(millisecondsSince1970: try row.decode(Int64.self, at: 7))
            var item = StoredExternalPurchaseReport.LineItem(
                lineItemID: lineItemID, eventType: event, referenceLineItemID: nil, isSubscriptionStart: false,
                transactionID: transactionID, productID: try row.decode(String.self, at: 4),
                occurredAt: event == "REFUND" ? refunded : start,
                periodStart: start, periodEnd: end, daysOfPaidServiceBefore: paidDays,
                priceMilliunits: try row.decode(Int64?.self, at: 8) ?? 0,
                currency: try row.decode(String?.self, at: 9) ?? "", taxMilliunits: try row.decode(Int64?.self, at: 10))
            if event == "BUY" {
                item.isSubscriptionStart = firstBuy == nil
                item.referenceLineItemID = firstBuy
                firstBuy = firstBuy ?? lineItemID
                buys[transactionID] = lineItemID
                if let end, end > start {
                    let days = (end.millisecondsSince1970 - start.millisecondsSince1970) / 86_400_000
                    paidDays = paidDays.saturatingAdding(days)
                }
            } else {
                item.referenceLineItemID = buys[transactionID]
            }
            decoded.append((try row.decode(Int64?.self, at: 0), item))
        }
        return decoded
    }

    /// The stored exchange rate (`fx apply`) of `currency` into `reportingCurrency` dated nearest `day` (days since
    /// 1970) and at most `withinDays` from it, with its day; nil when none is that close. Of two as near, the earlier.
    public func exchangeRate(of currency: String, into reportingCurrency: String, nearDay day: Int64, withinDays: Int64)
        async throws -> (rate: Double, day: Int64)?
    {
        let rows = try await pool.query(
            """
            SELECT rate::text, (rate_date - DATE '1970-01-01')::bigint FROM exchange_rates
            WHERE reporting_currency = \(reportingCurrency) AND currency = \(currency)
              AND abs((rate_date - DATE '1970-01-01')::bigint - \(day)::bigint) <= \(withinDays)::bigint
            ORDER BY abs((rate_date - DATE '1970-01-01')::bigint - \(day)::bigint), rate_date
            LIMIT 1
            """)
        guard let row = rows.first, let rate = Double(try row.decode(String.self, at: 0)) else { return nil }
        return (rate, try row.decode(Int64.self, at: 1))
    }

    /// Apple accepted report `reportID` (Send External Purchase Report answered 200).
    public func markSent(_ reportID: Int64, now: Instant) async throws {
        try await pool.query(
            """
            UPDATE external_purchase_reports SET sent_at = coalesce(sent_at, \(timestamp(now)))
            WHERE report_id = \(reportID)
            """)
    }

    /// Retrieve External Purchase Report returned report `reportID`: Apple holds it.
    public func markConfirmed(_ reportID: Int64, now: Instant) async throws {
        try await pool.query(
            """
            UPDATE external_purchase_reports SET state = 'confirmed', sent_at = coalesce(sent_at, \(timestamp(now))),
                confirmed_at = coalesce(confirmed_at, \(timestamp(now))), apple_errors = NULL
            WHERE report_id = \(reportID)
            """)
    }

    /// Apple refused report `reportID` for good; `appleErrors` is its error objects as JSON, `detail` the refusal
    /// in words.
    public func markFailed(_ reportID: Int64, appleErrors: String?, detail: String) async throws {
        try await pool.query(
            """
            UPDATE external_purchase_reports SET state = 'failed', apple_errors = \(appleErrors)::jsonb,
                failure = \(LedgerStore.storableError(detail))
            WHERE report_id = \(reportID) AND state = 'pending'
            """)
    }
}
