import PostgresLibPQ
import SubLedgerCore

/// The external purchase tokens SubLedger holds (handed over with web orders, or named by Apple's
/// `EXTERNAL_PURCHASE_TOKEN` notifications) and what was reported of each to Apple: every report with its
/// `requestIdentifier`, Apple's status, its line items, and whether Apple confirmed it, refused it (with Apple's error
/// objects) or it is still due (docs/guides/stripe.md, "External Purchase reporting").
public struct ExternalPurchasesReport: Sendable, Hashable, Codable {
    /// One report of a token, or a token with none yet.
    public struct Row: Sendable, Hashable, Codable {
        public var bundleID: String
        public var environment: String
        public var externalPurchaseID: String
        /// The account and web order the token came with; nil for a token only a notification named.
        public var accountID: String?
        public var orderID: String?
        /// The Stripe subscription the order was paid with, once it was.
        public var originalTransactionID: String?
        /// Nil for a token with no report yet (its order not paid).
        public var requestIdentifier: String?
        /// Apple's `status`: `LINE_ITEM`, `NO_LINE_ITEM`, `UNRECOGNIZED_TOKEN`.
        public var status: String?
        public var lineItems: Int
        /// `confirmed` (Apple holds it), `failed` (Apple refused it: never sent again), `due` (to be sent, or sent
        /// and not confirmed yet), or `no_report`.
        public var state: String
        public var recordedAt: Instant
        public var confirmedAt: Instant?
        /// Why it failed (Apple's error codes and fields), or the last error while it is tried again.
        public var error: String?
        /// Apple's error objects of a refused report, as received (JSON).
        public var appleErrors: String?
    }

    public struct Count: Sendable, Hashable, Codable {
        public var bundleID: String
        public var state: String
        public var count: Int
    }

    /// The newest `limit` rows.
    public var rows: [Row]
    /// Every report counted per app and state.
    public var totals: [Count]
    public var truncated: Bool
}

extension Reports {
    /// The tokens of the scope and their reports, newest first (at most `limit` rows), and the reports counted
    /// per app and state.
    public static func externalPurchases(on connection: PostgresConnection, scope: ReportScope, limit: Int) throws
        -> ExternalPurchasesReport
    {
        let store = try ReportStore(on: connection, scope: scope)
        let rows = try store.run(
            """
            WITH \(store.apps)
            SELECT s.bundle_id, k.environment, k.external_purchase_id, o.account_id, k.order_id::text,
                k.original_transaction_id, r.request_identifier::text, r.status,
                (SELECT count(*) FROM external_purchase_line_items l WHERE l.report_id = r.report_id),
                CASE WHEN r.report_id IS NULL THEN 'no_report' WHEN r.state = 'pending' THEN 'due' ELSE r.state END,
                coalesce(r.recorded_at, k.recorded_at), r.confirmed_at,
                coalesce(r.failure, (SELECT b.last_error FROM store_obligations b
                                     WHERE b.external_purchase_report_id = r.report_id)),
                r.apple_errors::text
            FROM external_purchase_tokens k JOIN scope s ON s.app_id = k.app_id
            LEFT JOIN orders o ON o.app_id = k.app_id AND o.order_id = k.order_id
            LEFT JOIN external_purchase_reports r ON r.token_id = k.token_id
            WHERE \(store.inEnvironment("k.environment"))
            ORDER BY coalesce(r.recorded_at, k.recorded_at) DESC, k.token_id DESC, r.report_id DESC
            LIMIT \(limit + 1)
            """
        ).map { row in
            ExternalPurchasesReport.Row(
                bundleID: try row.decode(String.self, at: 0), environment: try row.decode(String.self, at: 1),
                externalPurchaseID: try row.decode(String.self, at: 2), accountID: try row.decode(String?.self, at: 3),
                orderID: try row.decode(String?.self, at: 4),
                originalTransactionID: try row.decode(String?.self, at: 5),
                requestIdentifier: try row.decode(String?.self, at: 6), status: try row.decode(String?.self, at: 7),
                lineItems: try row.decode(Int.self, at: 8), state: try row.decode(String.self, at: 9),
                recordedAt: try row.instant(at: 10), confirmedAt: try row.optionalInstant(at: 11),
                error: try row.decode(String?.self, at: 12), appleErrors: try row.decode(String?.self, at: 13))
        }
        let totals = try store.run(
            """
            WITH \(store.apps)
            SELECT s.bundle_id, CASE WHEN r.state = 'pending' THEN 'due' ELSE r.state END, count(*)
            FROM external_purchase_reports r JOIN external_purchase_tokens k ON k.token_id = r.token_id
            JOIN scope s ON s.app_id = k.app_id
            WHERE \(store.inEnvironment("k.environment"))
            GROUP BY 1, 2 ORDER BY 1, 2
            """
        ).map { row in
            ExternalPurchasesReport.Count(
                bundleID: try row.decode(String.self, at: 0), state: try row.decode(String.self, at: 1),
                count: try row.decode(Int.self, at: 2))
        }
        return ExternalPurchasesReport(rows: Array(rows.prefix(limit)), totals: totals, truncated: rows.count > limit)
    }
}

extension ExternalPurchasesReport {
    public var table: ReportTable {
        ReportTable(
            title: "External purchase reports (web purchases reported to Apple)",
            columns: [
                "recorded_at", "app", "environment", "external_purchase_id", "account", "order", "subscription",
                "request_identifier", "status", "line_items", "state", "confirmed_at", "error",
            ],
            rows: rows.map {
                [
                    ReportFormat.timestamp($0.recordedAt), $0.bundleID, $0.environment, $0.externalPurchaseID,
                    $0.accountID ?? "", $0.orderID ?? "", $0.originalTransactionID ?? "", $0.requestIdentifier ?? "",
                    $0.status ?? "", String($0.lineItems), $0.state, $0.confirmedAt.map(ReportFormat.timestamp) ?? "",
                    $0.error ?? "",
                ]
            },
            notes: totals.map { "\($0.bundleID) \($0.state): \($0.count)" }
                + (truncated ? ["(more rows than shown)"] : []))
    }
}
