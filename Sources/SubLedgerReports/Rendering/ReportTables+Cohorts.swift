import Foundation
import SubLedgerCore

// How the cohort reports read as a table (for `--format table` and `--format csv`).

extension ReportFormat {
    /// A percentage with one decimal (`66.7`); empty for nil (a month not complete yet).
    static func percent(_ value: Double?) -> String {
        guard let value, value.isFinite else { return "" }
        return String(format: "%.1f", value)
    }
}

extension TrialsReport {
    public var table: ReportTable {
        func cohortLabel(_ start: Instant) -> String {
            granularity == .month ? String(ReportFormat.day(start).prefix(7)) : ReportFormat.day(start)
        }
        func cells(_ counts: Counts) -> [String] {
            [
                String(counts.starts), String(counts.converted), String(counts.pending),
                ReportFormat.percent(counts.conversionPercent),
            ]
        }
        var rows = self.rows.map { row in
            [cohortLabel(row.cohort), row.offer.rawValue, row.bundleID, row.productID] + cells(row.counts)
        }
        rows.append(["total", "trial", "", ""] + cells(totalTrial))
        rows.append(["total", "intro", "", ""] + cells(totalIntro))
        return ReportTable(
            title:
                "Trials and intro offers started from \(ReportFormat.timestamp(from)) to \(ReportFormat.timestamp(to)) "
                + "per \(granularity.rawValue), at \(ReportFormat.timestamp(at))",
            columns: ["cohort", "offer", "app", "product", "starts", "converted", "pending", "conversion_percent"],
            rows: rows,
            notes: ["converted: a later payment that was not refunded; pending: still in the offer, not converted yet"])
    }
}

extension RetentionReport {
    /// One row per cohort for the share still paying, then one per cohort and currency for revenue retention
    /// (with the realized LTV), then the reporting currency's.
    public var table: ReportTable {
        let monthColumns = (0..<months).map { "m\($0)" }
        var rows: [[String]] = []
        for cohort in cohorts {
            let label = String(ReportFormat.day(cohort.start).prefix(7))
            rows.append(
                [label, "paying_percent", String(cohort.subscribers), ""]
                    + cohort.payingPercent.map(ReportFormat.percent))
            for money in cohort.money + (cohort.reporting.map { [$0] } ?? []) {
                let metric =
                    money.currency == reportingCurrency && cohort.reporting == money
                    ? "revenue_percent \(money.currency) (reporting)" : "revenue_percent \(money.currency)"
                rows.append(
                    [label, metric, String(cohort.subscribers), ReportFormat.amount(milli: money.ltvMilli)]
                        + money.revenueRetention.map(ReportFormat.percent))
            }
        }
        var notes = [
            "paying_percent: chains that paid for part of month k since their first payment; "
                + "revenue_percent: net revenue bought in month k / month 0; ltv: net paid so far per chain; "
                + "empty: month not over yet"
        ]
        for cohort in cohorts {
            let label = String(ReportFormat.day(cohort.start).prefix(7))
            let totals = cohort.money.map {
                "\($0.currency) net \(ReportFormat.amount(milli: $0.netMilli)) (refunded \(ReportFormat.amount(milli: $0.refundedMilli)))"
            }
            var line =
                "\(label): \(cohort.subscribers) subscribers"
                + (totals.isEmpty ? "" : ", " + totals.joined(separator: ", "))
            if let reporting = cohort.reporting {
                line += ", \(reporting.currency) net \(ReportFormat.amount(milli: reporting.netMilli)) (reporting)"
            }
            if cohort.unpriced > 0 { line += "; \(cohort.unpriced) payments without a known price" }
            let estimated = cohort.money.reduce(0) { $0 + $1.estimated }
            if estimated > 0 { line += "; \(estimated) priced from the catalog (estimated)" }
            if !cohort.missingRates.isEmpty {
                line +=
                    "; no exchange rate for \(cohort.missingRates.joined(separator: ", ")) (left out of the reporting currency)"
            }
            notes.append(line)
        }
        return ReportTable(
            title:
                "Retention of cohorts by first payment from \(ReportFormat.timestamp(from)) to \(ReportFormat.timestamp(to)), "
                + "at \(ReportFormat.timestamp(at))",
            columns: ["cohort", "metric", "subscribers", "ltv"] + monthColumns, rows: rows, notes: notes)
    }
}
