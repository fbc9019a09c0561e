import SubLedgerCore

extension AdminPage {
    /// The cohorts section: the retention heatmap (share still paying per cohort and month since the first
    /// payment) and trial conversion per cohort, with the same figures, formatted the same way, as the CLI tables.
    static func cohortsSection(_ panel: CohortsPanel) -> String {
        var html = "<section class=\"cohorts\"><h2>Retention by first-payment month</h2>"
        if panel.retention.cohorts.isEmpty {
            html += "<p class=\"muted\">No paid subscriptions in the last \(panel.retention.months) months.</p>"
        } else {
            html += retentionHeatmap(panel.retention)
            html += ltvTable(panel.retention)
        }
        html += "<h2>Trial conversion per \(panel.trials.granularity.rawValue)</h2>"
        let cohorts = panel.trials.cohorts
        func label(_ start: Instant) -> String {
            panel.trials.granularity == .month ? String(ReportFormat.day(start).prefix(7)) : ReportFormat.day(start)
        }
        html += SVGChart.groupedBars(
            cohorts.map { (label: label($0.start), values: [$0.trial.starts, $0.trial.converted, $0.trial.pending]) },
            series: [("trial starts", "#90caf9"), ("converted", "#2e7d32"), ("pending", "#ffb300")],
            title: "Free trials started, converted and still running per cohort")
        let header = [
            "cohort", "trial starts", "converted", "pending", "conversion %", "intro starts", "intro converted",
            "intro conversion %",
        ]
        .map { "<th>\($0)</th>" }.joined()
        let rows = cohorts.map { cohort in
            let cells = [
                label(cohort.start), String(cohort.trial.starts), String(cohort.trial.converted),
                String(cohort.trial.pending),
                ReportFormat.percent(cohort.trial.conversionPercent), String(cohort.intro.starts),
                String(cohort.intro.converted),
                ReportFormat.percent(cohort.intro.conversionPercent),
            ]
            return "<tr>" + cells.map { "<td>\(HTML.escape($0))</td>" }.joined() + "</tr>"
        }.joined(separator: "\n")
        html += "<table class=\"trials\"><thead><tr>\(header)</tr></thead><tbody>\n\(rows)\n</tbody></table>"
        return html + "</section>"
    }

    /// An SVG grid: a row per cohort, a column per month since the first payment, each cell shaded by the share
    /// still paying and labelled with it (empty while the month is not over).
    static func retentionHeatmap(_ report: RetentionReport) -> String {
        let labelWidth = 120
        let cell = 34
        let rowHeight = 20
        let top = 20
        let width = labelWidth + report.months * cell + 8
        let height = top + report.cohorts.count * rowHeight + 8
        let title = "Share of each cohort still paying, by month since the first payment"
        var svg =
            "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(width) \(height)\" width=\"\(width)\" height=\"\(height)\" "
            + "role=\"img\" aria-label=\"\(HTML.escape(title))\"><title>\(HTML.escape(title))</title>"
        for month in 0..<report.months {
            svg +=
                "<text x=\"\(labelWidth + month * cell + cell / 2)\" y=\"14\" text-anchor=\"middle\" font-size=\"10\">m\(month)</text>"
        }
        for (row, cohort) in report.cohorts.enumerated() {
            let y = top + row * rowHeight
            let label = String(ReportFormat.day(cohort.start).prefix(7))
            svg +=
                "<text x=\"\(labelWidth - 6)\" y=\"\(y + 14)\" text-anchor=\"end\" font-size=\"11\">"
                + "\(HTML.escape(label)) (\(cohort.subscribers))</text>"
            for (month, percent) in cohort.payingPercent.enumerated() {
                guard let percent else { continue }
                let text = ReportFormat.percent(percent)
                // Light at 0 %, dark green at 100 %; text turns white on the dark half.
                let lightness = 95 - Int((percent / 100 * 70).rounded())
                let x = labelWidth + month * cell
                svg +=
                    "<g class=\"cell\" data-cohort=\"\(HTML.escape(label))\" data-month=\"\(month)\">"
                    + "<rect x=\"\(x)\" y=\"\(y)\" width=\"\(cell - 1)\" height=\"\(rowHeight - 1)\" fill=\"hsl(125,45%,\(lightness)%)\">"
                    + "<title>\(HTML.escape(label)) m\(month): \(text) % of \(cohort.subscribers)</title></rect>"
                    // A style attribute: the page's `svg text` rule would win over a `fill` attribute.
                    + "<text x=\"\(x + cell / 2)\" y=\"\(y + 14)\" text-anchor=\"middle\" font-size=\"9\" style=\"fill:\(lightness < 55 ? "#fff" : "#212121")\">"
                    + "\(text)</text></g>"
            }
        }
        return svg + "</svg>"
    }

    /// Realized LTV and revenue retention at the last complete month, per cohort and currency.
    private static func ltvTable(_ report: RetentionReport) -> String {
        let header = [
            "cohort", "subscribers", "currency", "net", "refunded", "LTV", "revenue % m1", "revenue % m3",
            "revenue % m12",
        ]
        .map { "<th>\($0)</th>" }.joined()
        var rows: [String] = []
        for cohort in report.cohorts {
            let label = String(ReportFormat.day(cohort.start).prefix(7))
            for money in cohort.money + (cohort.reporting.map { [$0] } ?? []) {
                func revenue(_ month: Int) -> String {
                    month < money.revenueRetention.count ? ReportFormat.percent(money.revenueRetention[month]) : ""
                }
                let isReporting = cohort.reporting == money && money.currency == report.reportingCurrency
                let cells = [
                    label, String(cohort.subscribers), money.currency + (isReporting ? " (reporting)" : ""),
                    ReportFormat.amount(milli: money.netMilli), ReportFormat.amount(milli: money.refundedMilli),
                    ReportFormat.amount(milli: money.ltvMilli), revenue(1), revenue(3), revenue(12),
                ]
                rows.append("<tr>" + cells.map { "<td>\(HTML.escape($0))</td>" }.joined() + "</tr>")
            }
            if !cohort.missingRates.isEmpty {
                rows.append(
                    "<tr><td>\(HTML.escape(label))</td><td colspan=\"8\" class=\"bad\">no exchange rate for "
                        + "\(HTML.escape(cohort.missingRates.joined(separator: ", "))): left out of the reporting currency</td></tr>"
                )
            }
        }
        return
            "<table class=\"ltv\"><thead><tr>\(header)</tr></thead><tbody>\n\(rows.joined(separator: "\n"))\n</tbody></table>"
    }
}
