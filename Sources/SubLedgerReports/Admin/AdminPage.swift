import Foundation
import SubLedgerCore

/// The admin page, `GET /admin`: server-rendered HTML with inline CSS and inline SVG charts, no script.
/// The money charts are on their own page, `AdminRevenuePage` (`/admin/revenue`), linked from the header.
///
/// Pure: it only formats report values, so the HTTP layer runs the reports and passes them in. Every string
/// that comes from the database or the request is escaped.
public enum AdminPage {
    /// The colour of each chain state in the charts.
    static let stateColors: [(name: String, color: String)] = [
        ("active", "#2e7d32"), ("grace_period", "#9ccc65"), ("billing_retry", "#ffb300"), ("expired", "#9e9e9e"),
        ("revoked", "#c62828"), ("upgraded_away", "#5c6bc0"), ("other", "#6d4c41"),
    ]

    /// Renders the page.
    ///
    /// - Parameters:
    ///   - summary: chains by state now (`Reports.summary`), for the headline numbers.
    ///   - activeOverTime: daily active subscriptions (`Reports.activeOverTime`), drawn as an area chart.
    ///   - statesByProduct: drawn as stacked bars (usually `summary.products`).
    ///   - churnByMonth: `Reports.churn` over the last months, drawn as grouped bars.
    ///   - search: the `q` query parameter, shown back in the search box.
    ///   - timeline: the search's result, shown as a table under the charts.
    ///   - webhooks: the webhook endpoints and recent failures (`WebhooksPanel.load`), shown under the charts.
    ///   - storeObligations: the calls owed to the stores (`StoreObligationsPanel.load`), shown after the webhooks.
    ///   - freshness: how far the reports' aggregates have caught up (`ReportFreshness.read`), shown under the
    ///     headline numbers.
    ///   - now: the page's moment, for the age of the oldest waiting delivery and of the reports.
    public static func render(
        summary: SummaryReport,
        activeOverTime: [ActiveOverTimeReport.Day],
        statesByProduct: [SummaryReport.ProductRow],
        churnByMonth: ChurnReport,
        search: String?,
        timeline: AdminSearchResult?,
        webhooks: WebhooksPanel? = nil,
        storeObligations: StoreObligationsPanel? = nil,
        freshness: ReportFreshness? = nil,
        now: Instant = Instant(millisecondsSince1970: 0)
    ) -> String {
        render(
            charts: Charts(
                summary: summary, activeOverTime: activeOverTime, statesByProduct: statesByProduct,
                churnByMonth: churnByMonth, freshness: freshness),
            search: .init(query: search, result: timeline), navigation: [.revenue], webhooks: webhooks,
            storeObligations: storeObligations, now: now)
    }

    /// The page's charts and headline numbers: what a key with the reports permission sees.
    public struct Charts: Sendable {
        public var summary: SummaryReport
        public var activeOverTime: [ActiveOverTimeReport.Day]
        public var statesByProduct: [SummaryReport.ProductRow]
        public var churnByMonth: ChurnReport
        public var freshness: ReportFreshness?

        public init(
            summary: SummaryReport, activeOverTime: [ActiveOverTimeReport.Day],
            statesByProduct: [SummaryReport.ProductRow], churnByMonth: ChurnReport, freshness: ReportFreshness?
        ) {
            self.summary = summary
            self.activeOverTime = activeOverTime
            self.statesByProduct = statesByProduct
            self.churnByMonth = churnByMonth
            self.freshness = freshness
        }
    }

    /// The search box and its result: what a key that may look customers up sees.
    public struct Search: Sendable {
        public var query: String?
        public var result: AdminSearchResult?

        public init(query: String?, result: AdminSearchResult?) {
            self.query = query
            self.result = result
        }
    }

    /// A page the header links to.
    public enum Link: Sendable, CaseIterable {
        case revenue
        case audit

        var href: String {
            switch self {
            case .revenue: "/admin/revenue"
            case .audit: "/admin/audit"
            }
        }

        var label: String {
            switch self {
            case .revenue: "Revenue"
            case .audit: "Audit"
            }
        }
    }

    /// Renders the page with only the parts given: each role sees what it may (the HTTP layer decides which,
    /// and also refuses the other parts' URLs).
    public static func render(
        charts: Charts?, search: Search?, navigation: [Link], webhooks: WebhooksPanel?,
        storeObligations: StoreObligationsPanel?, now: Instant
    ) -> String {
        let links = navigation.map { "<a href=\"\($0.href)\">\($0.label)</a>" }.joined(separator: " ")
        var html = """
            <!DOCTYPE html>
            <html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
            <title>SubLedger admin</title><style>\(css)</style></head><body>
            <header><h1>SubLedger</h1><nav>\(links)</nav>
            """
        if let search {
            html += """
                <form method="get" action="/admin" role="search">
                <input type="search" name="q" placeholder="order id, transaction id, app account token or account id" value="\(HTML.escape(search.query ?? ""))">
                <button type="submit">Search</button></form>
                """
        }
        html += "</header><main>"
        if let charts {
            html += headline(charts.summary)
            if let freshness = charts.freshness { html += freshnessLine(freshness, now: now) }
        }
        if let timeline = search?.result { html += searchSection(timeline) }
        if let charts { html += chartSections(charts) }
        if let webhooks { html += webhooksSection(webhooks, now: now) }
        if let storeObligations { html += storeObligationsSection(storeObligations, now: now) }
        html += "</main></body></html>\n"
        return html
    }

    /// A store as the page names it (`Store.displayName`); a store this build does not know, its raw name.
    static func storeName(_ store: String) -> String { Store(rawValue: store)?.displayName ?? store }

    private static func chartSections(_ charts: Charts) -> String {
        let churnByMonth = charts.churnByMonth
        var html = "<section><h2>Active subscriptions</h2>"
        html += SVGChart.area(
            charts.activeOverTime.map { .init(label: ReportFormat.day($0.day), value: $0.active) },
            title: "Active subscriptions per day")
        html += "</section><section><h2>States by product</h2>"
        html += SVGChart.stackedBars(
            charts.statesByProduct.map { product in
                SVGChart.Stack(
                    label: product.productID + (product.store.map { " (\(storeName($0)))" } ?? ""),
                    segments: stateColors.map {
                        ($0.name, $0.name == "other" ? product.counts.other : product.counts[$0.name], $0.color)
                    })
            },
            legend: stateColors, title: "Subscription chains by state and product")
        html += "</section><section><h2>Churn per \(churnByMonth.granularity.rawValue)</h2>"
        html += SVGChart.groupedBars(
            churnByMonth.periods.map { period in
                (
                    label: churnByMonth.granularity == .month
                        ? String(ReportFormat.day(period.start).prefix(7)) : ReportFormat.day(period.start),
                    values: [
                        period.counts.started, period.counts.renewed, period.counts.expired, period.counts.recovered,
                    ]
                )
            },
            series: [("started", "#1565c0"), ("renewed", "#2e7d32"), ("expired", "#c62828"), ("recovered", "#ffb300")],
            title: "Started, renewed, expired and recovered subscriptions")
        html += "</section>"
        return html
    }

    /// The moment the reports are complete up to, and how many changes they are still missing.
    static func freshnessLine(_ freshness: ReportFreshness, now: Instant) -> String {
        let lag = Int(freshness.lag(at: now).rounded(.down))
        return "<p class=\"freshness\">Reports as of \(HTML.escape(ReportFormat.timestamp(freshness.asOf)))"
            + (freshness.pendingChanges == 0
                ? " (up to date)" : " (\(freshness.pendingChanges) changes not projected yet, \(lag) s behind)")
            + "</p>"
    }

    private static func headline(_ summary: SummaryReport) -> String {
        let figures: [(String, Int)] = [
            ("chains", summary.totals.total), ("active", summary.totals.active),
            ("grace period", summary.totals.gracePeriod), ("billing retry", summary.totals.billingRetry),
            ("expired", summary.totals.expired), ("revoked", summary.totals.revoked),
        ]
        return "<section class=\"figures\">"
            + figures.map { "<div><strong>\($0.1)</strong><span>\(HTML.escape($0.0))</span></div>" }.joined()
            + "<p class=\"muted\">at \(HTML.escape(ReportFormat.timestamp(summary.at)))</p></section>"
    }

    private static func searchSection(_ result: AdminSearchResult) -> String {
        switch result {
        case .notFound(let query):
            return
                "<section><h2>Search</h2><p>Nothing has the id <code>\(HTML.escape(query))</code>: no order, transaction, app account token or account.</p></section>"
        case .account(let timeline):
            return "<section><h2>Account <code>\(HTML.escape(timeline.accountID))</code></h2>"
                + eventTable(timeline.events) + "</section>"
        case .support(let answer):
            return supportSection(answer)
        case .refused(let query, let reason):
            return "<section><h2>Search</h2><p><code>\(HTML.escape(query))</code>: \(HTML.escape(reason))</p></section>"
        case .chain(let audit):
            let chains = audit.chains.map { chain in
                "<li>\(HTML.escape(chain.bundleID)) \(HTML.escape(chain.environment)): \(HTML.escape(chain.productID)), "
                    + "owner <code>\(HTML.escape(chain.ownerAccountID ?? "none"))</code>, \(HTML.escape(chain.state))"
                    + (chain.expiresAt.map { ", expires \(HTML.escape(ReportFormat.timestamp($0)))" } ?? "") + "</li>"
            }.joined()
            return "<section><h2>Original transaction <code>\(HTML.escape(audit.originalTransactionID))</code></h2>"
                + "<ul>\(chains)</ul>" + eventTable(audit.events) + "</section>"
        }
    }

    private static func supportSection(_ answer: SupportAnswer) -> String {
        var html =
            "<section class=\"support\"><h2>\(HTML.escape(answer.kind.rawValue.replacingOccurrences(of: "_", with: " "))) "
            + "<code>\(HTML.escape(answer.query))</code> <span class=\"muted\">\(HTML.escape(answer.bundleID))</span></h2>"
        html += "<p class=\"advice\"><strong>Tell the customer:</strong> \(HTML.escape(answer.advice))</p>"
        if let accountID = answer.accountID {
            html += "<p>Account <code>\(HTML.escape(accountID))</code></p>"
        }
        if let order = answer.order {
            html +=
                "<p>Order token <code>\(HTML.escape(order.orderID))</code>: created by <code>\(HTML.escape(order.accountID))</code> "
                + "for \(HTML.escape(order.productID)), \(HTML.escape(order.state))</p>"
        }
        if let apple = answer.apple {
            html +=
                "<p>Apple (\(HTML.escape(apple.environment))): \(HTML.escape(apple.transactionIDs.joined(separator: ", ")))"
                + (apple.unrecordedTransactionIDs.isEmpty
                    ? ""
                    : "; not in the ledger: \(HTML.escape(apple.unrecordedTransactionIDs.joined(separator: ", ")))")
                + (apple.applied ? "; applied now" : "") + "</p>"
        }
        if !answer.chains.isEmpty {
            let header = [
                "environment", "store", "original transaction", "product", "owner", "state", "expires", "owners",
                "advice",
            ]
            .map { "<th>\($0)</th>" }.joined()
            let rows = answer.chains.map { chain in
                let cells = [
                    chain.environment, chain.store, chain.originalTransactionID, chain.productID,
                    chain.ownerAccountID ?? "(unclaimed)",
                    chain.state, chain.expiresAt.map(ReportFormat.timestamp) ?? "", chain.ownershipSummary,
                    chain.advice,
                ]
                return "<tr>" + cells.map { "<td>\(HTML.escape($0))</td>" }.joined() + "</tr>"
            }.joined(separator: "\n")
            html += "<table class=\"chains\"><thead><tr>\(header)</tr></thead><tbody>\n\(rows)\n</tbody></table>"
        }
        if let grants = answer.grants, !grants.isEmpty { html += grantTable(grants) }
        return html + "<h2>Timeline</h2>" + eventTable(answer.timeline) + "</section>"
    }

    /// The account's entitlements granted by hand, with who granted or revoked them and why.
    private static func grantTable(_ grants: [SupportAnswer.Grant]) -> String {
        let header = ["grant", "entitlement", "environment", "from", "until", "revoked", "by", "revoked by", "reason"]
            .map { "<th>\($0)</th>" }.joined()
        let rows = grants.map { grant in
            let cells = [
                grant.grantID, grant.entitlementID, grant.environment, ReportFormat.timestamp(grant.startsAt),
                ReportFormat.timestamp(grant.endsAt), grant.revokedAt.map(ReportFormat.timestamp) ?? "",
                grant.grantedBy, grant.revokedBy ?? "", grant.reason,
            ]
            return "<tr>" + cells.map { "<td>\(HTML.escape($0))</td>" }.joined() + "</tr>"
        }.joined(separator: "\n")
        return "<h2>Granted entitlements</h2><table class=\"grants\"><thead><tr>\(header)</tr></thead><tbody>\n"
            + rows + "\n</tbody></table>"
    }

    private static func eventTable(_ events: [TimelineEvent]) -> String {
        guard !events.isEmpty else { return "<p>No events.</p>" }
        let rows = events.map { event in
            let cells = [
                ReportFormat.timestamp(event.at), event.category.rawValue, event.bundleID, event.environment ?? "",
                event.originalTransactionID ?? "", event.productID ?? "", event.accountID ?? "", event.summary,
            ]
            return "<tr>" + cells.map { "<td>\(HTML.escape($0))</td>" }.joined() + "</tr>"
        }.joined(separator: "\n")
        let header = ["at", "what", "app", "environment", "original transaction", "product", "account", "detail"]
            .map { "<th>\($0)</th>" }.joined()
        return "<table><thead><tr>\(header)</tr></thead><tbody>\n\(rows)\n</tbody></table>"
    }

    static let css = """
        body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#212121;background:#fafafa}
        header{display:flex;gap:24px;align-items:center;padding:12px 24px;background:#263238;color:#fff}
        header h1{font-size:18px;margin:0}header a{color:#fff}header input{width:360px;padding:6px}
        main{padding:16px 24px}section{background:#fff;border:1px solid #e0e0e0;border-radius:6px;padding:12px 16px;margin-bottom:16px}
        h2{font-size:16px;margin:0 0 8px}.figures{display:flex;gap:24px;flex-wrap:wrap;align-items:baseline}
        .figures div{display:flex;flex-direction:column}.figures strong{font-size:22px}.muted{color:#757575}
        table{border-collapse:collapse;width:100%;font-size:12px}td,th{border-bottom:1px solid #eee;padding:4px 6px;text-align:left}
        svg{max-width:100%;height:auto}svg .line{fill:none;stroke:#1565c0;stroke-width:2}svg .area{fill:#bbdefb}
        svg .axis{stroke:#9e9e9e}svg text{fill:#424242}.advice{font-size:15px;background:#e8f5e9;padding:6px 8px}
        .ok{color:#2e7d32;font-weight:600}.bad{color:#c62828;font-weight:600}.webhooks h2+table+h2,.webhooks p+h2{margin-top:16px}
        """
}
