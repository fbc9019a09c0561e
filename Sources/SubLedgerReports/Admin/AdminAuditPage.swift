import SubLedgerCore

/// The audit page, `GET /admin/audit`: what admin and support keys did, newest first, one page at a time
/// (admin keys only). Server-rendered HTML, no script, like `AdminPage`; every string is escaped.
public enum AdminAuditPage {
    /// One entry of the audit log as the page shows it.
    public struct Row: Sendable, Hashable {
        public var auditID: Int64
        public var occurredAt: Instant
        public var keyName: String
        public var keyID: String
        public var scope: String
        public var method: String
        public var route: String
        /// The route's parameters, `name=value` each.
        public var target: [String: String]
        public var status: Int
        public var clientAddress: String?
        public var requestID: String

        public init(
            auditID: Int64, occurredAt: Instant, keyName: String, keyID: String, scope: String, method: String,
            route: String, target: [String: String], status: Int, clientAddress: String?, requestID: String
        ) {
            self.auditID = auditID
            self.occurredAt = occurredAt
            self.keyName = keyName
            self.keyID = keyID
            self.scope = scope
            self.method = method
            self.route = route
            self.target = target
            self.status = status
            self.clientAddress = clientAddress
            self.requestID = requestID
        }
    }

    /// Renders one page of `rows`; `olderPage` is the query string of the next (older) page, when there is one.
    public static func render(rows: [Row], key: String?, olderPage: String?) -> String {
        var html = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>SubLedger audit log</title><style>\(AdminPage.css)</style></head><body>
            <header><h1>SubLedger audit log</h1><nav><a href="/admin">Operations</a></nav>
            <form method="get" action="/admin/audit"><input type="search" name="key" placeholder="key id or name" value="\(HTML.escape(key ?? ""))">
            <button type="submit">Filter</button></form></header><main><section class="audit">
            """
        if rows.isEmpty {
            html += "<p>No entries.</p>"
        } else {
            html +=
                "<table><thead><tr><th>When</th><th>Key</th><th>Scope</th><th>Request</th><th>Target</th>"
                + "<th>Status</th><th>From</th><th>Request id</th></tr></thead><tbody>"
            for row in rows {
                let target = row.target.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
                    .joined(separator: " ")
                html +=
                    "<tr><td>\(HTML.escape(ReportFormat.timestamp(row.occurredAt)))</td>"
                    + "<td>\(HTML.escape(row.keyName)) <code>\(HTML.escape(row.keyID))</code></td>"
                    + "<td>\(HTML.escape(row.scope))</td>"
                    + "<td><code>\(HTML.escape(row.method)) \(HTML.escape(row.route))</code></td>"
                    + "<td><code>\(HTML.escape(target))</code></td><td>\(row.status)</td>"
                    + "<td>\(HTML.escape(row.clientAddress ?? "-"))</td><td><code>\(HTML.escape(row.requestID))</code></td></tr>"
            }
            html += "</tbody></table>"
        }
        if let olderPage { html += "<p><a href=\"/admin/audit?\(HTML.escape(olderPage))\">Older entries</a></p>" }
        html += "</section></main></body></html>\n"
        return html
    }
}
