import Foundation
import SubLedgerCore
import Testing

@testable import SubLedgerReports

/// Parsing report names and arguments: bad input is a clear error, never a silent default.
@Suite struct ReportRequestTests {
    let now = Instant(millisecondsSince1970: 1_735_689_600_000)

    @Test(arguments: [("7d", 604_800), ("12h", 43_200), ("30m", 1_800), ("45s", 45), ("2w", 1_209_600)])
    func durations(text: String, seconds: Int64) throws {
        #expect(try ReportArguments.duration(text) == .seconds(seconds))
    }

    @Test(arguments: ["", "7", "d", "-1d", "0d", "7x", "1.5d", "100000w"])
    func badDurations(text: String) {
        let error = #expect(throws: ReportError.self) { try ReportArguments.duration(text) }
        #expect(error?.code == .invalidArgument)
    }

    @Test func instants() throws {
        #expect(try ReportArguments.instant("2025-01-01", now: now) == now)
        #expect(try ReportArguments.instant("2025-01-01T02:00:00+02:00", now: now) == now)
        #expect(try ReportArguments.instant("now", now: now) == now)
        #expect(try ReportArguments.instant("2025-01-01T00:00:00.500Z", now: now) == now.adding(milliseconds: 500))
        #expect(throws: ReportError.self) { try ReportArguments.instant("yesterday", now: now) }
        #expect(throws: ReportError.self) { try ReportArguments.instant("2025-13-01", now: now) }
    }

    @Test func requestsResolveDefaults() throws {
        let expiring = try ReportRequest(
            name: "expiring", options: ["within": "12h", "app": "com.example.app"], now: now)
        #expect(expiring.kind == .expiring(at: now, within: .seconds(43_200), limit: 100))
        #expect(expiring.scope == ReportScope(bundleID: "com.example.app"))
        let churn = try ReportRequest(name: "churn", options: ["from": "2024-01-01"], now: now)
        #expect(churn.kind == .churn(from: try ReportArguments.instant("2024-01-01", now: now), to: now))
        #expect(try ReportRequest(name: "account", id: "alice", options: [:], now: now).kind == .account("alice"))
    }

    @Test(
        arguments: [
            ("nonsense", nil, [:], ReportError.Code.unknownReport),
            ("summary", nil, ["within": "7d"], .invalidArgument),
            ("account", nil, [:], .invalidArgument),
            ("summary", "x", [:], .invalidArgument),
            ("churn", nil, ["from": "2025-02-01", "to": "2025-01-01"], .invalidArgument),
            ("refunds", nil, ["limit": "0"], .invalidArgument),
            ("active", nil, ["environment": "Staging"], .invalidArgument),
            ("active-over-time", nil, ["days": "0"], .invalidArgument),
            // Ids and bundle ids the ledger could never hold are refused before any query (NUL, length, spaces).
            ("account", "al\u{0}ice", [:], .invalidArgument),
            ("account", String(repeating: "a", count: 129), [:], .invalidArgument),
            ("original", "1000 0001", [:], .invalidArgument),
            ("original", String(repeating: "1", count: 65), [:], .invalidArgument),
            ("summary", nil, ["app": "com.example\u{0}"], .invalidArgument),
            ("summary", nil, ["app": String(repeating: "a", count: 256)], .invalidArgument),
        ] as [(String, String?, [String: String], ReportError.Code)])
    func badRequests(name: String, id: String?, options: [String: String], code: ReportError.Code) {
        let error = #expect(throws: ReportError.self) {
            try ReportRequest(name: name, id: id, options: options, now: now)
        }
        #expect(error?.code == code)
    }
}

/// The revenue reports' arguments.
@Suite struct RevenueReportRequestTests {
    let now = Instant(millisecondsSince1970: 1_735_689_600_000)

    @Test func revenueAndMRRResolveTheirDefaultsAndOptions() throws {
        let revenue = try ReportRequest(name: "revenue", options: ["by": "week", "currency": "EUR"], now: now)
        #expect(
            revenue.kind
                == .revenue(from: now.adding(milliseconds: -30 * 86_400_000), to: now, by: .week, currency: "EUR"))
        #expect(
            try ReportRequest(name: "revenue", options: [:], now: now).kind
                == .revenue(from: now.adding(milliseconds: -30 * 86_400_000), to: now, by: .day, currency: nil))
        let mrr = try ReportRequest(name: "mrr", options: ["from": "2024-01-01"], now: now)
        #expect(
            mrr.kind
                == .mrr(from: try ReportArguments.instant("2024-01-01", now: now), to: now, now: now, currency: nil))
    }

    @Test(arguments: [
        ("revenue", ["by": "year"]), ("revenue", ["currency": "usd"]), ("revenue", ["currency": "DOLLARS"]),
        ("mrr", ["by": "day"]), ("mrr", ["currency": "€"]), ("mrr", ["limit": "3"]),
        ("revenue", ["from": "2025-02-01", "to": "2025-01-01"]),
    ])
    func badArgumentsAreRefused(name: String, options: [String: String]) {
        let error = #expect(throws: ReportError.self) { try ReportRequest(name: name, options: options, now: now) }
        #expect(error?.code == .invalidArgument)
    }
}
