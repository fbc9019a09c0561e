import SubLedgerCore

extension AdminPage {
    /// The colours of the MRR movements: gains above the axis, losses below.
    static let movementColors: [(name: String, color: String)] = [
        ("new", "#1565c0"), ("expansion", "#2e7d32"), ("reactivation", "#00897b"), ("contraction", "#ffb300"),
        ("churned", "#c62828"),
    ]

    /// The revenue section of `/admin/revenue`: MRR and ARR at the range's end, the MRR movement per month as stacked bars, and gross, refunds
    /// and proceeds per month, in the currency with the most MRR (every currency is in the reports); over the range,
    /// what went from gross to proceeds: tax, the stores' commissions, the payment processor's fees (web sales).
    static func revenueSection(_ panel: RevenuePanel) -> String {
        guard let currency = panel.currency else {
            return "<section class=\"revenue\"><h2>Revenue</h2><p>No priced transactions in this range.</p></section>"
        }
        let rows = panel.mrr.rows.filter { $0.currency == currency }
        guard !rows.isEmpty || panel.revenue.periods.contains(where: { $0.currency == currency }) else {
            return
                "<section class=\"revenue\"><h2>Revenue</h2><p>No priced transactions in \(HTML.escape(currency)) in this range.</p></section>"
        }
        var html = "<section class=\"revenue\"><h2>MRR (\(HTML.escape(currency)))</h2>"
        if let last = rows.last {
            html +=
                "<div class=\"figures\"><div><strong>\(DecimalText.milliunits(last.mrrMilli))</strong><span>MRR \(HTML.escape(last.month))</span></div>"
                + "<div><strong>\(DecimalText.milliunits(last.arrMilli))</strong><span>ARR</span></div>"
                + "<div><strong>\(last.subscribers)</strong><span>paying subscribers</span></div></div>"
        }
        html += movementChart(
            rows.map { row in
                (
                    row.month,
                    [
                        row.movementMilli.new, row.movementMilli.expansion, row.movementMilli.reactivation,
                        -row.movementMilli.contraction, -row.movementMilli.churned,
                    ]
                )
            },
            title: "MRR movement per month (\(currency))")
        let others = Set(panel.mrr.rows.map(\.currency)).subtracting([currency]).sorted()
        if !others.isEmpty {
            html +=
                "<p class=\"muted\">Also in \(HTML.escape(others.joined(separator: ", "))): see <code>subledger report mrr</code>.</p>"
        }
        html += "</section><section class=\"revenue\"><h2>Revenue per month (\(HTML.escape(currency)))</h2>"
        let periods = panel.revenue.periods.filter { $0.currency == currency }
        html += SVGChart.groupedBars(
            periods.map { period in
                (
                    label: String(period.period.prefix(7)),
                    values: [period.amounts.grossMilli, period.amounts.refundsMilli, period.amounts.proceedsMilli].map(
                        units)
                )
            },
            series: [("gross", "#1565c0"), ("refunds", "#c62828"), ("proceeds", "#2e7d32")],
            title: "Gross, refunds and proceeds per month (\(currency), whole units)")
        if let total = panel.revenue.totals.first(where: { $0.currency == currency }) {
            html +=
                "<p>Whole range: gross \(DecimalText.milliunits(total.amounts.grossMilli)), refunds "
                + "\(DecimalText.milliunits(total.amounts.refundsMilli)), proceeds \(DecimalText.milliunits(total.amounts.proceedsMilli))"
                + " after tax \(DecimalText.milliunits(total.amounts.taxMilli)), the stores' commissions "
                + "\(DecimalText.milliunits(total.amounts.commissionMilli)) and payment processing fees "
                + "\(DecimalText.milliunits(total.amounts.processingFeeMilli))"
                + (total.amounts.estimatedMilli > 0
                    ? " (estimated: \(DecimalText.milliunits(total.amounts.estimatedMilli)))" : "") + "</p>"
        }
        return html + "</section>"
    }

    /// Whole units of a milli-unit amount (for bar heights), rounded down.
    private static func units(_ milli: Int64) -> Int { Int(milli / 1_000) }

    /// Vertical stacked bars per month: positive values stacked above the axis, negative ones below; each
    /// segment's exact amount in its tooltip.
    static func movementChart(
        _ months: [(label: String, values: [Int64])], title: String, width: Int = 720, height: Int = 260
    ) -> String {
        let left = 64
        let right = 8
        let top = 28
        let bottom = 28
        let plotWidth = width - left - right
        let plotHeight = height - top - bottom
        let up = max(months.map { $0.values.filter { $0 > 0 }.reduce(0, +) }.max() ?? 0, 1)
        let down = months.map { -$0.values.filter { $0 < 0 }.reduce(0, +) }.max() ?? 0
        let scale = Double(plotHeight) / Double(up + down)
        let axisY = top + Int(Double(up) * scale)
        let slot = months.isEmpty ? plotWidth : plotWidth / months.count
        var svg =
            "<svg xmlns=\"http://www.w3.org/2000/svg\" viewBox=\"0 0 \(width) \(height)\" width=\"\(width)\" height=\"\(height)\" "
            + "role=\"img\" aria-label=\"\(HTML.escape(title))\"><title>\(HTML.escape(title))</title>"
        var legendX = left
        for entry in movementColors {
            svg +=
                "<rect x=\"\(legendX)\" y=\"4\" width=\"10\" height=\"10\" fill=\"\(entry.color)\"/>"
                + "<text x=\"\(legendX + 14)\" y=\"13\" font-size=\"11\">\(entry.name)</text>"
            legendX += 24 + entry.name.count * 7
        }
        svg +=
            "<line class=\"axis\" x1=\"\(left)\" y1=\"\(axisY)\" x2=\"\(left + plotWidth)\" y2=\"\(axisY)\"/>"
            + "<text x=\"\(left - 4)\" y=\"\(top + 4)\" text-anchor=\"end\" font-size=\"11\">\(DecimalText.milliunits(up))</text>"
            + "<text x=\"\(left - 4)\" y=\"\(axisY + 4)\" text-anchor=\"end\" font-size=\"11\">0</text>"
        if down > 0 {
            svg +=
                "<text x=\"\(left - 4)\" y=\"\(top + plotHeight)\" text-anchor=\"end\" font-size=\"11\">-\(DecimalText.milliunits(down))</text>"
        }
        for (index, month) in months.enumerated() {
            let x = left + index * slot + 4
            let barWidth = max(2, slot - 8)
            var above = axisY
            var below = axisY
            for (series, value) in month.values.enumerated() where value != 0 && series < movementColors.count {
                let size = max(1, Int(Double(abs(value)) * scale))
                let y: Int
                if value > 0 {
                    above -= size
                    y = above
                } else {
                    y = below
                    below += size
                }
                svg +=
                    "<rect x=\"\(x)\" y=\"\(y)\" width=\"\(barWidth)\" height=\"\(size)\" fill=\"\(movementColors[series].color)\">"
                    + "<title>\(HTML.escape(month.label)) \(movementColors[series].name): \(DecimalText.milliunits(abs(value)))</title></rect>"
            }
            if months.count <= 16 || index % max(1, months.count / 8) == 0 {
                svg +=
                    "<text x=\"\(x + barWidth / 2)\" y=\"\(height - 8)\" text-anchor=\"middle\" font-size=\"11\">\(HTML.escape(month.label))</text>"
            }
        }
        return svg + "</svg>"
    }
}
