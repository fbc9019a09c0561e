import PostgresLibPQ
import SubLedgerCore

/// The external purchase tokens, reports and line items an apply records (schema step 51), in its transaction: a
/// token whose order a transaction of the apply's chains fulfilled is bound to that chain, each of the bound chains'
/// transactions not reported yet becomes a `BUY` line item and each revoked one a `REFUND`, and the new line items of
/// a token make one report (its `requestIdentifier` drawn now) with the store obligation that sends it.
///
/// The chains' transactions are the apply's own, in memory, passed as arrays, and a line item keeps what its report
/// says of the transaction (product, period, price): the statements read and write the coordinator's tables only, so
/// on a Citus cluster none joins a distributed table (`transactions` is distributed by chain, the tokens are not).
enum ExternalPurchaseRows {
    /// Appends the statements for the chains of `app` an apply updated to `batch`; nothing for an app that does not
    /// report.
    static func record(_ chains: [ChainSnapshot], app: StoredApp, now: Instant, into batch: inout PostgresBatch) {
        guard app.definition.externalPurchase.report, !chains.isEmpty else { return }
        // Each transaction as its `transactions` row has it (`ChainRows.upsertTransaction`): its price, currency and
        // revocation as stored.
        let all = chains.flatMap { chain in
            chain.transactions.map { known in
                Fact(
                    chain: chain.key, transaction: known.transaction,
                    price: RevenueFieldRules.price(known.details.price),
                    currency: RevenueFieldRules.code(known.details.currency),
                    tax: known.transaction.tax, revocationDate: known.activeRevocation?.revocationDate)
            }
        }
        let environments = PostgresArrayText.strings(all.map(\.chain.environment.rawValue))
        let originals = PostgresArrayText.strings(all.map(\.chain.chainID))
        let ids = PostgresArrayText.strings(all.map(\.transaction.transactionID))
        // The order's chain: the order was fulfilled (earlier in this batch) by a transaction of one of these chains.
        batch.append(
            """
            UPDATE external_purchase_tokens k
            SET chain_environment = c.environment, original_transaction_id = c.chain
            FROM orders o,
                unnest(\(environments)::text::text[], \(originals)::text::text[], \(ids)::text::text[])
                    AS c(environment, chain, transaction_id)
            WHERE k.app_id = \(app.appID) AND k.original_transaction_id IS NULL AND o.app_id = k.app_id
              AND o.order_id = k.order_id AND o.environment = c.environment
              AND o.fulfilled_transaction_id = c.transaction_id
            """)
        // A BUY per paid transaction of a bound chain, a REFUND per one revoked; each once (the unique key).
        let paid = all.filter { $0.price != nil && $0.currency != nil }
        if !paid.isEmpty { batch.append(lineItems(paid, event: "BUY", appID: app.appID, now: now)) }
        let revoked = paid.filter { $0.revocationDate != nil }
        if !revoked.isEmpty { batch.append(lineItems(revoked, event: "REFUND", appID: app.appID, now: now)) }
        batch.append(reportNewLineItems(appID: app.appID, now: now))
    }

    /// Line items `event` of `transactions` whose chain a token of `appID` is bound to (a `REFUND` only of a
    /// transaction with a `BUY`), oldest purchase first, each with what its report says of the transaction.
    static func lineItems(_ transactions: [Fact], event: String, appID: Int64, now: Instant) -> PostgresQuery {
        let sorted = transactions.sorted {
            ($0.transaction.purchaseDate, $0.transaction.transactionID)
                < ($1.transaction.purchaseDate, $1.transaction.transactionID)
        }
        func column(_ values: [String]) -> PostgresQuery {
            "\(PostgresArrayText.strings(values))::text::text[]"
        }
        func milliseconds(_ values: [Instant?]) -> PostgresQuery {
            "\(PostgresArrayText.strings(values.map { $0.map { String($0.millisecondsSince1970) } ?? "" }))::text::text[]"
        }
        let refunds = event == "REFUND"
        let source: PostgresQuery = """
            unnest(\(column(sorted.map(\.chain.environment.rawValue))), \(column(sorted.map(\.chain.chainID))),
                \(column(sorted.map(\.transaction.transactionID))), \(column(sorted.map(\.transaction.productID))),
                \(milliseconds(sorted.map(\.transaction.purchaseDate))),
                \(milliseconds(sorted.map(\.transaction.expiresDate))),
                \(milliseconds(sorted.map { refunds ? $0.revocationDate : $0.transaction.purchaseDate })),
                \(column(sorted.map { String($0.price ?? 0) })), \(column(sorted.map { $0.currency ?? "" })),
                \(column(sorted.map { $0.tax.map(String.init) ?? "" })))
                WITH ORDINALITY AS c(environment, chain, transaction_id, product_id, period_start, period_end, occurred,
                    price, currency, tax, position)
            """
        let onlyBought: PostgresQuery =
            refunds
            ? """
            AND EXISTS (SELECT 1 FROM external_purchase_line_items b WHERE b.token_id = k.token_id
                AND b.event_type = 'BUY' AND b.transaction_id = c.transaction_id)
            """ : ""
        return """
            INSERT INTO external_purchase_line_items (line_item_id, token_id, transaction_id, event_type, recorded_at,
                product_id, period_start_ms, period_end_ms, occurred_ms, price_milliunits, currency, tax_milliunits)
            SELECT gen_random_uuid(), k.token_id, c.transaction_id, \(event), \(timestamp(now)), c.product_id,
                c.period_start::bigint, nullif(c.period_end, '')::bigint, c.occurred::bigint, c.price::bigint, c.currency,
                nullif(c.tax, '')::bigint
            FROM \(source)
            JOIN external_purchase_tokens k ON k.app_id = \(appID) AND k.chain_environment = c.environment
                AND k.original_transaction_id = c.chain
            WHERE true \(onlyBought)
            ORDER BY c.position
            ON CONFLICT DO NOTHING
            """
    }

    /// A transaction of an apply's chain as its line items need it.
    struct Fact {
        var chain: ChainKey
        var transaction: Transaction
        var price: Int64?
        var currency: String?
        /// The tax in the price the processor stated, if it lies between 0 and the price.
        var tax: Int64?
        var revocationDate: Instant?

        init(
            chain: ChainKey, transaction: Transaction, price: Int64?, currency: String?, tax: Int64?,
            revocationDate: Instant?
        ) {
            self.chain = chain
            self.transaction = transaction
            self.price = price
            self.currency = currency
            self.tax = tax.flatMap { tax in price.flatMap { (0...$0).contains(tax) ? tax : nil } }
            self.revocationDate = revocationDate
        }
    }

    /// One report per token of `appID` with line items in none yet, with the obligation that sends it.
    static func reportNewLineItems(appID: Int64, now: Instant) -> PostgresQuery {
        """
        WITH fresh AS (
            SELECT DISTINCT l.token_id FROM external_purchase_line_items l
            JOIN external_purchase_tokens k ON k.token_id = l.token_id
            WHERE l.report_id IS NULL AND k.app_id = \(appID)
        ), made AS (
            INSERT INTO external_purchase_reports (token_id, request_identifier, status, recorded_at)
            SELECT token_id, gen_random_uuid(), 'LINE_ITEM', \(timestamp(now)) FROM fresh ORDER BY token_id
            RETURNING report_id, token_id
        ), assigned AS (
            UPDATE external_purchase_line_items l SET report_id = made.report_id FROM made
            WHERE l.token_id = made.token_id AND l.report_id IS NULL
        )
        \(owing("made", now: now))
        """
    }

    /// The obligations of the reports `made` (a relation of `report_id`, `token_id`) names.
    static func owing(_ made: PostgresQuery, now: Instant) -> PostgresQuery {
        """
        INSERT INTO store_obligations (app_id, store, kind, environment, original_transaction_id, transaction_id,
            account_id, external_purchase_report_id, created_at)
        SELECT k.app_id, \(Store.appStore.rawValue), \(StoreObligation.Kind.reportExternalPurchase.rawValue),
            k.environment, coalesce(k.original_transaction_id, k.external_purchase_id), k.external_purchase_id,
            o.account_id, m.report_id, \(timestamp(now))
        FROM \(made) m JOIN external_purchase_tokens k ON k.token_id = m.token_id
        LEFT JOIN orders o ON o.app_id = k.app_id AND o.order_id = k.order_id
        ON CONFLICT DO NOTHING
        """
    }

    /// Called in the transaction that applies a stored `EXTERNAL_PURCHASE_TOKEN` notification (Apple's
    /// `UNREPORTED`, `ACTIVE_TOKEN_REMINDER`) of an app that reports: records the report Apple asks for, with the
    /// obligation that sends it. A token no order came with is recorded and reported `UNRECOGNIZED_TOKEN`; a
    /// token whose order led to no transaction (nothing reported yet) `NO_LINE_ITEM`; a token reported before
    /// needs nothing new (its reports are sent, or on their way, by the outbox).
    static func recordNotified(
        notificationRowID: Int64, app: StoredApp, now: Instant, on connection: PostgresConnection
    ) throws {
        guard app.definition.externalPurchase.report else { return }
        guard
            let row = try connection.query(
                """
                SELECT external_purchase_id, environment FROM notifications
                WHERE notification_row_id = \(notificationRowID) AND notification_type = 'EXTERNAL_PURCHASE_TOKEN'
                  AND external_purchase_id IS NOT NULL
                """
            ).first
        else { return }
        let externalPurchaseID = try row.decode(String.self, at: 0)
        let environment = try row.decode(String.self, at: 1)
        // The token's row, locked against an apply that adds its line items meanwhile; made when unknown.
        try connection.query(
            """
            INSERT INTO external_purchase_tokens (app_id, environment, external_purchase_id, recorded_at)
            VALUES (\(app.appID), \(environment), \(externalPurchaseID), \(timestamp(now)))
            ON CONFLICT (app_id, external_purchase_id) DO NOTHING
            """)
        let token = try connection.query(
            """
            SELECT token_id, order_id IS NOT NULL,
                EXISTS (SELECT 1 FROM external_purchase_line_items l WHERE l.token_id = k.token_id)
                    OR EXISTS (SELECT 1 FROM external_purchase_reports r WHERE r.token_id = k.token_id)
            FROM external_purchase_tokens k
            WHERE app_id = \(app.appID) AND external_purchase_id = \(externalPurchaseID)
            FOR UPDATE
            """
        ).single()
        guard try !token.decode(Bool.self, at: 2) else { return }
        let status = try token.decode(Bool.self, at: 1) ? "NO_LINE_ITEM" : "UNRECOGNIZED_TOKEN"
        try connection.query(
            """
            WITH made AS (
                INSERT INTO external_purchase_reports (token_id, request_identifier, status, recorded_at)
                VALUES (\(try token.decode(Int64.self, at: 0)), gen_random_uuid(), \(status), \(timestamp(now)))
                RETURNING report_id, token_id
            )
            \(owing("made", now: now))
            """)
    }
}
