import PostgresLibPQ
import SubLedgerCore

/// What the admin page shows of the calls SubLedger owes the stores (`store_obligations`: Set App Account Token and
/// Finish Transaction and consumption answers to Apple, Google Play acknowledgements and consumptions): per app,
/// store and kind, how many wait, were sent, skipped or failed, and the oldest waiting one; then the most recent refusals. A plain value, read by
/// `load(on:)` and rendered by `AdminPage`.
public struct StoreObligationsPanel: Sendable, Hashable {
    /// One app's obligations of one kind.
    public struct Row: Sendable, Hashable {
        public var bundleID: String
        /// `app_store` or `google_play`.
        public var store: String
        /// `set_app_account_token`, `finish_transaction`, `send_consumption_information`,
        /// `acknowledge_subscription`, `acknowledge_product` or `consume_product`.
        public var kind: String
        /// Pending or retrying.
        public var waiting: Int
        public var sent: Int
        /// Nothing was owed after all (a consumption answer without the customer's consent, or with the app's
        /// policy off).
        public var skipped: Int
        public var failed: Int
        public var superseded: Int
        public var oldestWaitingSince: Instant?
    }

    /// One obligation its store refused, or that waits for another try.
    public struct Problem: Sendable, Hashable {
        public var at: Instant
        public var bundleID: String
        public var store: String
        public var kind: String
        public var transactionID: String
        /// `retry` or `failed`.
        public var state: String
        public var error: String?
    }

    public var rows: [Row]
    public var problems: [Problem]

    /// At most this many problems are shown.
    public static let problemLimit = 20

    /// Reads the panel on `connection`.
    public static func load(on connection: PostgresConnection) throws -> StoreObligationsPanel {
        let rows = try connection.query(
            """
            SELECT a.bundle_id, o.store, o.kind,
                   count(*) FILTER (WHERE o.state IN ('pending', 'retry')),
                   count(*) FILTER (WHERE o.state = 'sent'),
                   count(*) FILTER (WHERE o.state = 'failed'),
                   count(*) FILTER (WHERE o.state = 'superseded'),
                   count(*) FILTER (WHERE o.state = 'skipped'),
                   min(o.created_at) FILTER (WHERE o.state IN ('pending', 'retry'))
            FROM store_obligations o JOIN apps a ON a.app_id = o.app_id
            GROUP BY a.bundle_id, o.store, o.kind ORDER BY a.bundle_id, o.store, o.kind
            """ as PostgresQuery
        ).map { row in
            Row(
                bundleID: try row.decode(String.self, at: 0), store: try row.decode(String.self, at: 1),
                kind: try row.decode(String.self, at: 2), waiting: try row.decode(Int.self, at: 3),
                sent: try row.decode(Int.self, at: 4), skipped: try row.decode(Int.self, at: 7),
                failed: try row.decode(Int.self, at: 5), superseded: try row.decode(Int.self, at: 6),
                oldestWaitingSince: try row.optionalInstant(at: 8))
        }
        let problems = try connection.query(
            """
            SELECT o.created_at, a.bundle_id, o.store, o.kind, o.transaction_id, o.state, o.last_error
            FROM store_obligations o JOIN apps a ON a.app_id = o.app_id
            WHERE o.state = 'failed' OR (o.state = 'retry' AND o.last_error IS NOT NULL)
            ORDER BY o.obligation_id DESC LIMIT \(problemLimit)
            """ as PostgresQuery
        ).map { row in
            Problem(
                at: try row.instant(at: 0), bundleID: try row.decode(String.self, at: 1),
                store: try row.decode(String.self, at: 2), kind: try row.decode(String.self, at: 3),
                transactionID: try row.decode(String.self, at: 4), state: try row.decode(String.self, at: 5),
                error: try row.decode(String?.self, at: 6))
        }
        return StoreObligationsPanel(rows: rows, problems: problems)
    }
}

extension AdminPage {
    /// The "Writes to the stores" section; nothing when no app has ever owed a store a call.
    static func storeObligationsSection(_ panel: StoreObligationsPanel, now: Instant) -> String {
        guard !panel.rows.isEmpty else { return "" }
        var html = "<section class=\"webhooks\"><h2>Writes to the stores</h2>"
        let header = ["app", "store", "call", "waiting", "oldest waiting", "sent", "skipped", "failed", "superseded"]
            .map { "<th>\($0)</th>" }.joined()
        let rows = panel.rows.map { row in
            let cells = [
                HTML.escape(row.bundleID), HTML.escape(row.store), "<code>\(HTML.escape(row.kind))</code>",
                String(row.waiting), row.oldestWaitingSince.map { age(since: $0, now: now) } ?? "", String(row.sent),
                String(row.skipped), row.failed > 0 ? "<span class=\"bad\">\(row.failed)</span>" : "0",
                String(row.superseded),
            ]
            return "<tr>" + cells.map { "<td>\($0)</td>" }.joined() + "</tr>"
        }.joined(separator: "\n")
        html += "<table><thead><tr>\(header)</tr></thead><tbody>\n\(rows)\n</tbody></table>"
        if !panel.problems.isEmpty {
            html += "<h2>Refused or retrying</h2>"
            let header = ["recorded", "app", "store", "call", "transaction", "state", "error"]
                .map { "<th>\($0)</th>" }.joined()
            let rows = panel.problems.map { problem in
                let cells = [
                    HTML.escape(ReportFormat.timestamp(problem.at)), HTML.escape(problem.bundleID),
                    HTML.escape(problem.store), "<code>\(HTML.escape(problem.kind))</code>",
                    "<code>\(HTML.escape(problem.transactionID))</code>",
                    problem.state == "failed" ? "<span class=\"bad\">failed</span>" : "retry",
                    HTML.escape(problem.error ?? ""),
                ]
                return "<tr>" + cells.map { "<td>\($0)</td>" }.joined() + "</tr>"
            }.joined(separator: "\n")
            html += "<table><thead><tr>\(header)</tr></thead><tbody>\n\(rows)\n</tbody></table>"
        }
        return html + "</section>"
    }
}
