import SubLedgerCore

/// The revenue page's query, `GET /admin/revenue?from=&to=&currency=`: the range of both reports and the
/// currency charted. `from` and `to` take what the reports take (`2025-01-31`, an ISO 8601 time, `now`);
/// by default the 12 calendar months up to `now` (`RevenuePanel.range(now:)`). `currency` picks the currency
/// charted among those in the ledger (by default the one with the most MRR); it converts nothing.
public struct RevenuePageQuery: Sendable, Hashable {
    public var from: Instant
    public var to: Instant
    public var currency: String?

    /// The parameters the page takes.
    public static let parameters: Set<String> = ["from", "to", "currency"]

    /// Reads the query; a `ReportError.invalidArgument` (HTTP 400) for an unknown parameter, a malformed date
    /// or currency, or `from` not before `to`.
    public init(options: [String: String], now: Instant) throws {
        if let unknown = options.keys.sorted().first(where: { !Self.parameters.contains($0) }) {
            throw ReportError.invalidArgument(
                "unknown parameter '\(unknown.prefix(32))': the page takes from, to and currency")
        }
        func text(_ key: String) -> String? { options[key].flatMap { $0.isEmpty ? nil : $0 } }
        let to = try text("to").map { try ReportArguments.instant(String($0.prefix(64)), now: now) } ?? now
        let from =
            try text("from").map { try ReportArguments.instant(String($0.prefix(64)), now: now) }
            ?? RevenuePanel.range(now: to).from
        try ReportError.checkRange(from: from, to: to)
        let currency = text("currency")
        if let currency, !RevenueFieldRules.isCode(currency) {
            throw ReportError.invalidArgument(
                "currency must be three uppercase letters (USD), not '\(currency.prefix(16))'")
        }
        self.from = from
        self.to = to
        self.currency = currency
    }

    /// The default query at `now`: the 12 calendar months up to `now`, the currency with the most MRR.
    public init(now: Instant) {
        (from, to) = RevenuePanel.range(now: now)
        currency = nil
    }
}
