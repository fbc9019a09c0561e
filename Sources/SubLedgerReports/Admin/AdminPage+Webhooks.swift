import SubLedgerCore

extension AdminPage {
    /// The webhooks section: endpoints with state and queue, then the recent failures.
    static func webhooksSection(_ panel: WebhooksPanel, now: Instant) -> String {
        var html = "<section class=\"webhooks\"><h2>Webhooks</h2>"
        if panel.endpoints.isEmpty {
            html += "<p class=\"muted\">No endpoints. Add one with <code>subledger webhooks add</code>.</p>"
        } else {
            let header = [
                "app", "url", "state", "pending", "oldest pending", "failed", "delivered", "last delivered", "endpoint",
            ]
            .map { "<th>\($0)</th>" }.joined()
            let rows = panel.endpoints.map { endpoint in
                let state = endpoint.pausedReason.map { "\(endpoint.state) (\($0))" } ?? endpoint.state
                let stateClass = endpoint.state == "active" ? "ok" : "bad"
                let cells = [
                    HTML.escape(endpoint.bundleID), "<code>\(HTML.escape(endpoint.url))</code>",
                    "<span class=\"\(stateClass)\">\(HTML.escape(state))</span>"
                        + (endpoint.consecutiveFailures > 0
                            ? " <span class=\"muted\">\(endpoint.consecutiveFailures) failures in a row</span>" : ""),
                    String(endpoint.pending), endpoint.oldestPendingSince.map { age(since: $0, now: now) } ?? "",
                    endpoint.failed > 0 ? "<span class=\"bad\">\(endpoint.failed)</span>" : "0",
                    String(endpoint.delivered),
                    endpoint.lastDeliveredAt.map { HTML.escape(ReportFormat.timestamp($0)) } ?? "",
                    "<code class=\"muted\">\(HTML.escape(endpoint.endpointID))</code>",
                ]
                return "<tr>" + cells.map { "<td>\($0)</td>" }.joined() + "</tr>"
            }.joined(separator: "\n")
            html += "<table class=\"endpoints\"><thead><tr>\(header)</tr></thead><tbody>\n\(rows)\n</tbody></table>"
        }
        html += "<h2>Recent failures</h2>"
        if panel.recentFailures.isEmpty {
            html += "<p class=\"muted\">No failed attempts.</p>"
        } else {
            let header = ["at", "app", "url", "event", "status", "error"].map { "<th>\($0)</th>" }.joined()
            let rows = panel.recentFailures.map { failure in
                let cells = [
                    HTML.escape(ReportFormat.timestamp(failure.attemptedAt)), HTML.escape(failure.bundleID),
                    "<code>\(HTML.escape(failure.url))</code>",
                    "\(HTML.escape(failure.eventType)) <code class=\"muted\">\(HTML.escape(failure.eventID))</code>",
                    failure.status.map(String.init) ?? "no response", HTML.escape(failure.error ?? ""),
                ]
                return "<tr>" + cells.map { "<td>\($0)</td>" }.joined() + "</tr>"
            }.joined(separator: "\n")
            html += "<table class=\"failures\"><thead><tr>\(header)</tr></thead><tbody>\n\(rows)\n</tbody></table>"
        }
        return html + "</section>"
    }

    /// "45 s", "12 min", "3 h", "2 d".
    static func age(since: Instant, now: Instant) -> String {
        let seconds = max(0, Int(ReportCalendar.milliseconds(from: since, to: now) / 1_000))
        switch seconds {
        case ..<60: return "\(seconds) s"
        case ..<3_600: return "\(seconds / 60) min"
        case ..<86_400: return "\(seconds / 3_600) h"
        default: return "\(seconds / 86_400) d"
        }
    }
}
