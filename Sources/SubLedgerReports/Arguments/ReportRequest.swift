import Foundation
import SubLedgerCore

/// A report to run, chosen by name with its arguments validated: what the `report` command and
/// `/v1/admin/reports/{name}` both build from text.
public struct ReportRequest: Sendable, Hashable {
    /// Which report, with its time arguments resolved.
    public enum Kind: Sendable, Hashable {
        case summary(at: Instant?, now: Instant)
        case active(at: Instant)
        case expiring(at: Instant, within: Duration, limit: Int)
        case churn(from: Instant, to: Instant)
        case refunds(from: Instant, to: Instant, limit: Int)
        case transfers(from: Instant, to: Instant, limit: Int)
        case unclaimed(limit: Int)
        case account(String)
        case original(String)
        case activeOverTime(days: Int, now: Instant)
        case quarantined(limit: Int)
        case consumption(from: Instant, to: Instant, limit: Int, now: Instant)
        case externalPurchases(limit: Int)
        case trials(from: Instant, to: Instant, granularity: TrialsReport.Granularity, now: Instant)
        case retention(from: Instant, to: Instant, months: Int, currency: String?, now: Instant)
        case mrr(from: Instant, to: Instant, now: Instant, currency: String?)
        case revenue(from: Instant, to: Instant, by: RevenueReport.Granularity, currency: String?)
    }

    public var scope: ReportScope
    public var kind: Kind

    public init(scope: ReportScope, kind: Kind) {
        self.scope = scope
        self.kind = kind
    }

    /// The report names, as the command and the HTTP routes spell them.
    public static let names = [
        "summary", "active", "expiring", "churn", "refunds", "transfers", "unclaimed", "account", "original",
        "active-over-time", "quarantined",
        "consumption", "external-purchases",
        "trials", "retention",
        "mrr", "revenue",
    ]

    /// The options each report accepts besides `app` and `environment`.
    static let options: [String: Set<String>] = [
        "summary": ["at"], "active": ["at"], "expiring": ["at", "within", "limit"], "churn": ["from", "to"],
        "refunds": ["from", "to", "limit"], "transfers": ["from", "to", "limit"], "unclaimed": ["limit"],
        "account": [], "original": [], "active-over-time": ["days"], "quarantined": ["limit"],
        "consumption": ["from", "to", "limit"], "external-purchases": ["limit"],
        "trials": ["from", "to", "cohort"], "retention": ["from", "to", "months", "currency"],
        "mrr": ["from", "to", "currency"], "revenue": ["from", "to", "by", "currency"],
    ]

    /// Every option some report accepts, `app` and `environment` included: the query parameters
    /// `/v1/admin/reports/{name}` takes besides `format` (one a report does not take is refused by `init`).
    public static let optionNames: Set<String> = options.values.reduce(["app", "environment"]) { $0.union($1) }

    /// Default row limit of the list reports.
    public static let defaultLimit = 100

    /// Builds a request from a report name, its id argument (`account` and `original` only) and textual
    /// options (`app`, `environment`, `at`, `from`, `to`, `within`, `limit`, `days`), at `now`.
    ///
    /// Defaults: `at` now; `within` 7d; `from`/`to` the 30 days before now (churn: 365 days); `limit` 100;
    /// `days` 30. An option the report does not take is an error, so a typo never passes silently.
    public init(name: String, id: String? = nil, options: [String: String], now: Instant) throws {
        guard let accepted = Self.options[name] else {
            throw ReportError(
                code: .unknownReport,
                message: "unknown report '\(name)': use one of \(Self.names.joined(separator: ", "))")
        }
        for key in options.keys.sorted() where !accepted.contains(key) && key != "app" && key != "environment" {
            throw ReportError.invalidArgument("the \(name) report does not take '\(key)'")
        }
        let bundleID = options["app"].flatMap { $0.isEmpty ? nil : $0 }
        if let bundleID, !IdentifierRule.bundleID.accepts(bundleID) {
            throw ReportError.invalidArgument("'app' is not a bundle id: \(IdentifierRule.bundleID.summary)")
        }
        let scope = ReportScope(
            bundleID: bundleID,
            environment: options["environment"].flatMap { $0.isEmpty ? nil : $0 })
        if let environment = scope.environment,
            !["Production", "Sandbox", "Xcode", "LocalTesting"].contains(environment)
        {
            throw ReportError.invalidArgument(
                "unknown environment '\(environment)': use Production, Sandbox, Xcode or LocalTesting")
        }

        func instant(_ key: String) throws -> Instant? {
            try options[key].map { try ReportArguments.instant($0, now: now) }
        }
        func limit() throws -> Int { try options["limit"].map { try ReportArguments.limit($0) } ?? Self.defaultLimit }
        func range(defaultDays: Int) throws -> (Instant, Instant) {
            let to = try instant("to") ?? now
            let from = try instant("from") ?? to.adding(milliseconds: -Int64(defaultDays) * 86_400_000)
            try ReportError.checkRange(from: from, to: to)
            return (from, to)
        }
        func identifier() throws -> String {
            guard let id, !id.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw ReportError.invalidArgument("the \(name) report needs an id: subledger report \(name) ID")
            }
            // The id is looked up as it is: one the ledger could never hold is refused before the database.
            let rule: IdentifierRule = name == "account" ? .accountID : .transactionID
            guard rule.accepts(id) else { throw ReportError.invalidArgument("the id is not valid: \(rule.summary)") }
            return id
        }
        if id != nil, name != "account", name != "original" {
            throw ReportError.invalidArgument("the \(name) report takes no id")
        }

        let kind: Kind
        switch name {
        case "summary": kind = .summary(at: try instant("at"), now: now)
        case "active": kind = .active(at: try instant("at") ?? now)
        case "expiring":
            kind = .expiring(
                at: try instant("at") ?? now,
                within: try options["within"].map(ReportArguments.duration) ?? .seconds(7 * 86_400),
                limit: try limit())
        case "churn":
            let (from, to) = try range(defaultDays: 365)
            kind = .churn(from: from, to: to)
        case "refunds":
            let (from, to) = try range(defaultDays: 30)
            kind = .refunds(from: from, to: to, limit: try limit())
        case "transfers":
            let (from, to) = try range(defaultDays: 30)
            kind = .transfers(from: from, to: to, limit: try limit())
        case "unclaimed": kind = .unclaimed(limit: try limit())
        case "account": kind = .account(try identifier())
        case "original": kind = .original(try identifier())
        case "quarantined": kind = .quarantined(limit: try limit())
        case "consumption":
            let (from, to) = try range(defaultDays: 30)
            kind = .consumption(from: from, to: to, limit: try limit(), now: now)
        case "external-purchases": kind = .externalPurchases(limit: try limit())
        case "trials", "retention":
            kind = try Self.cohortKind(name, options: options, instant: instant, now: now)
        case "mrr", "revenue":
            kind = try Self.revenueKind(name, options: options, now: now, range: range)
        default:
            let days = try options["days"].map { text in
                guard let days = Int(text), (1...3_660).contains(days) else {
                    throw ReportError.invalidArgument("days must be a whole number between 1 and 3660, not '\(text)'")
                }
                return days
            }
            kind = .activeOverTime(days: days ?? 30, now: now)
        }
        self.init(scope: scope, kind: kind)
    }
}

extension ReportRequest {
    /// The `trials` and `retention` requests. Defaults: `to` now; `from` the start of the UTC month (trials by
    /// week: the Monday) 11 cohorts before `to`'s for trials, 23 for retention, so the default is 12 monthly trial
    /// cohorts and 24 retention cohorts; `cohort` month; `months` 24; `currency` the only one rates are loaded for.
    static func cohortKind(
        _ name: String, options: [String: String], instant: (String) throws -> Instant?, now: Instant
    ) throws -> Kind {
        let to = try instant("to") ?? now
        let granularity: TrialsReport.Granularity =
            try options["cohort"].map { text in
                guard let value = TrialsReport.Granularity(rawValue: text) else {
                    throw ReportError.invalidArgument("cohort must be week or month, not '\(text)'")
                }
                return value
            } ?? .month
        let from = try instant("from") ?? Self.cohortStart(to, back: name == "trials" ? 11 : 23, granularity)
        try ReportError.checkRange(from: from, to: to)
        if name == "trials" { return .trials(from: from, to: to, granularity: granularity, now: now) }
        let months =
            try options["months"].map { text in
                guard let months = Int(text), (1...Reports.retentionMonthsLimit).contains(months) else {
                    throw ReportError.invalidArgument(
                        "months must be a whole number between 1 and \(Reports.retentionMonthsLimit), not '\(text)'")
                }
                return months
            } ?? 24
        let currency = try options["currency"].flatMap { $0.isEmpty ? nil : $0 }.map { text in
            guard text.count == 3, text.allSatisfy({ $0.isASCII && $0.isUppercase }) else {
                throw ReportError.invalidArgument("currency must be an ISO 4217 code like USD, not '\(text)'")
            }
            return text
        }
        return .retention(from: from, to: to, months: months, currency: currency, now: now)
    }

    /// The first instant of the UTC week (its Monday) or month `count` cohorts before the one `instant` is in.
    private static func cohortStart(_ instant: Instant, back count: Int64, _ granularity: TrialsReport.Granularity)
        -> Instant
    {
        let day = CalendarDay.of(instant)
        return CalendarDay.start(
            of: granularity == .week
                ? ReportCalendar.weekStart(day - 7 * count) : ReportCalendar.monthStart(day, plus: -count))
    }
}
