import SubLedgerCore

extension ReportRequest {
    /// The `mrr` and `revenue` reports' arguments: `currency` (a reporting currency, three uppercase letters),
    /// `by` (revenue: day, week or month; default day). `mrr` defaults to the 12 calendar months up to the
    /// current one, `revenue` to the 30 days before now.
    static func revenueKind(
        _ name: String, options: [String: String], now: Instant, range: (Int) throws -> (Instant, Instant)
    ) throws -> Kind {
        let currency = options["currency"].flatMap { $0.isEmpty ? nil : $0 }
        if let currency, !RevenueFieldRules.isCode(currency) {
            throw ReportError.invalidArgument(
                "currency must be three uppercase letters (USD), not '\(currency.prefix(16))'")
        }
        if name == "mrr" {
            let (from, to) = try range(335)
            return .mrr(from: from, to: to, now: now, currency: currency)
        }
        let by = try options["by"].map { text in
            guard let granularity = RevenueReport.Granularity(rawValue: text) else {
                throw ReportError.invalidArgument("by must be day, week or month, not '\(text.prefix(16))'")
            }
            return granularity
        }
        let (from, to) = try range(30)
        return .revenue(from: from, to: to, by: by ?? .day, currency: currency)
    }
}
