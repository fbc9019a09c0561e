import PostgresLibPQ
import SubLedgerCore

/// What the admin page shows of the calls SubLedger owes Apple (`apple_write_backs`: Set App Account Token, Finish
/// Transaction): per app and kind, how many wait, were sent or failed, and the oldest waiting one; then the most
/// recent refusals. A plain value, read by `load(on:)` and rendered by `AdminPage`.
public struct AppleWriteBacksPanel: Sendable, Hashable {
    /// One app's write-backs of one kind.
    public struct Row: Sendable, Hashable {
        public var bundleID: String
        /// `set_app_account_token` or `finish_transaction`.
        public var kind: String
        /// Pending or retrying.
        public var waiting: Int
        public var sent: Int
        public var failed: Int
        public var superseded: Int
        public var oldestWaitingSince: Instant?
    }

    /// One write-back Apple refused, or that waits for another try.
    public struct Problem: Sendable, Hashable {
        public var at: Instant
        public var bundleID: String
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
    public static func load(on connection: PostgresConnection) throws -> AppleWriteBacksPanel {
        let rows = try connection.query(
            """
            SELECT a.bundle_id, w.kind,
                   count(*) FILTER (WHERE w.state IN ('pending', 'retry')),
                   count(*) FILTER (WHERE w.state = 'sent'),
                   count(*) FILTER (WHERE w.state = 'failed'),
                   count(*) FILTER (WHERE w.state = 'superseded'),
                   min(w.created_at) FILTER (WHERE w.state IN ('pending', 'retry'))
            FROM apple_write_backs w JOIN apps a ON a.app_id = w.app_id
            GROUP BY a.bundle_id, w.kind ORDER BY a.bundle_id, w.kind
            """ as PostgresQuery
        ).map { row in
            Row(
                bundleID: try row.decode(String.self, at: 0), kind: try row.decode(String.self, at: 1),
                waiting: try row.decode(Int.self, at: 2), sent: try row.decode(Int.self, at: 3),
                failed: try row.decode(Int.self, at: 4), superseded: try row.decode(Int.self, at: 5),
                oldestWaitingSince: try row.optionalInstant(at: 6))
        }
        let problems = try connection.query(
            """
            SELECT w.created_at, a.bundle_id, w.kind, w.transaction_id, w.state, w.last_error
            FROM apple_write_backs w JOIN apps a ON a.app_id = w.app_id
            WHERE w.state = 'failed' OR (w.state = 'retry' AND w.last_error IS NOT NULL)
            ORDER BY w.write_back_id DESC LIMIT \(problemLimit)
            """ as PostgresQuery
        ).map { row in
            Problem(
                at: try row.instant(at: 0), bundleID: try row.decode(String.self, at: 1),
                kind: try row.decode(String.self, at: 2), transactionID: try row.decode(String.self, at: 3),
                state: try row.decode(String.self, at: 4), error: try row.decode(String?.self, at: 5))
        }
        return AppleWriteBacksPanel(rows: rows, problems: problems)
    }
}

extension AdminPage {
    /// The "Writes to Apple" section; nothing when no app has ever owed Apple a call.
    static func appleWriteBacksSection(_ panel: AppleWriteBacksPanel, now: Instant) -> String {
        guard !panel.rows.isEmpty else { return "" }
        var html = "<section class=\"webhooks\"><h2>Writes to Apple</h2>"
        let header = ["app", "call", "waiting", "oldest waiting", "sent", "failed", "superseded"]
            .map { "<th>\($0)</th>" }.joined()
        let rows = panel.rows.map { row in
            let cells = [
                HTML.escape(row.bundleID), "<code>\(HTML.escape(row.kind))</code>", String(row.waiting),
                row.oldestWaitingSince.map { age(since: $0, now: now) } ?? "", String(row.sent),
                row.failed > 0 ? "<span class=\"bad\">\(row.failed)</span>" : "0", String(row.superseded),
            ]
            return "<tr>" + cells.map { "<td>\($0)</td>" }.joined() + "</tr>"
        }.joined(separator: "\n")
        html += "<table><thead><tr>\(header)</tr></thead><tbody>\n\(rows)\n</tbody></table>"
        if !panel.problems.isEmpty {
            html += "<h2>Refused or retrying</h2>"
            let header = ["recorded", "app", "call", "transaction", "state", "error"].map { "<th>\($0)</th>" }.joined()
            let rows = panel.problems.map { problem in
                let cells = [
                    HTML.escape(ReportFormat.timestamp(problem.at)), HTML.escape(problem.bundleID),
                    "<code>\(HTML.escape(problem.kind))</code>", "<code>\(HTML.escape(problem.transactionID))</code>",
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
