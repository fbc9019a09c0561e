import SubLedgerCore

/// The revenue page, `GET /admin/revenue`: the money charts (MRR movement, revenue per month) apart from the
/// operations dashboard `/admin`, because their reports take seconds on a large ledger while `/admin` must
/// render fast. Server-rendered HTML with inline CSS and SVG, no script, like `AdminPage`.
///
/// Pure: the HTTP layer runs the reports and passes them in. Every string from the database or the request
/// is escaped.
public enum AdminRevenuePage {
    /// Renders the page.
    ///
    /// - Parameters:
    ///   - query: the range and currency asked for, shown back in the form.
    ///   - revenue: the `mrr` and `revenue` reports over `query`'s range (`RevenuePanel.load`).
    ///   - now: the page's moment.
    ///   - cohorts: the retention heatmap and trial conversion (`CohortsPanel.load`), shown under the money charts.
    public static func render(
        query: RevenuePageQuery, revenue: RevenuePanel, cohorts: CohortsPanel? = nil, now: Instant
    ) -> String {
        var html = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>SubLedger revenue</title><style>\(AdminPage.css)header .range input{width:auto;padding:4px}</style></head><body>
            <header><h1>SubLedger revenue</h1><nav><a href="/admin">Operations</a></nav>
            <form class="range" method="get" action="/admin/revenue">
            <label>from <input type="date" name="from" value="\(HTML.escape(ReportFormat.day(query.from)))"></label>
            <label>to <input type="date" name="to" placeholder="now" value="\(query.to == now ? "" : HTML.escape(ReportFormat.day(query.to)))"></label>
            <label>currency <input type="text" name="currency" size="4" maxlength="3" pattern="[A-Z]{3}" value="\(HTML.escape(query.currency ?? ""))"></label>
            <button type="submit">Show</button></form></header><main>
            <p class="muted">From \(HTML.escape(ReportFormat.timestamp(query.from))) to \(HTML.escape(ReportFormat.timestamp(query.to))), every app; the same figures as <code>subledger report mrr</code> and <code>subledger report revenue --by month</code> over that range.</p>
            """
        html += AdminPage.revenueSection(revenue)
        if let cohorts { html += AdminPage.cohortsSection(cohorts) }
        html += "</main></body></html>\n"
        return html
    }
}
