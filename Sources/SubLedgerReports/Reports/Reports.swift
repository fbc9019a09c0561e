import PostgresLibPQ

/// The admin reports: one function per report, each a few parameterized, index-backed SQL statements over
/// the ledger's tables, returning a typed, `Codable` value (rows and totals).
///
/// Every report takes a `ReportScope` (an optional app bundle id and environment) and injected times; none
/// asks the clock itself. Reports only read: they run on one pooled connection each.
public enum Reports {
    /// Runs `request` on `pool` and wraps the result, for callers that pick the report by name
    /// (the `report` command, `/v1/admin/reports/{name}`).
    public static func run(_ request: ReportRequest, on pool: PostgresPool) async throws -> AnyReport {
        try await pool.withConnection { connection in
            try run(request, on: connection)
        }
    }

    /// Runs `request` on `connection` (synchronously: call it on the connection's own thread).
    public static func run(_ request: ReportRequest, on connection: PostgresConnection) throws -> AnyReport {
        let scope = request.scope
        switch request.kind {
        case .summary(let at, let now):
            return .summary(try summary(on: connection, scope: scope, at: at, now: now))
        case .active(let at):
            return .active(try active(on: connection, scope: scope, at: at))
        case .expiring(let at, let within, let limit):
            return .expiring(try expiring(on: connection, scope: scope, at: at, within: within, limit: limit))
        case .churn(let from, let to):
            return .churn(try churn(on: connection, scope: scope, from: from, to: to))
        case .refunds(let from, let to, let limit):
            return .refunds(try refunds(on: connection, scope: scope, from: from, to: to, limit: limit))
        case .transfers(let from, let to, let limit):
            return .transfers(try transfers(on: connection, scope: scope, from: from, to: to, limit: limit))
        case .unclaimed(let limit):
            return .unclaimed(try unclaimed(on: connection, scope: scope, limit: limit))
        case .account(let accountID):
            return .account(try account(accountID, on: connection, scope: scope))
        case .original(let originalTransactionID):
            return .original(try original(originalTransactionID, on: connection, scope: scope))
        case .activeOverTime(let days, let now):
            return .activeOverTime(try activeOverTime(on: connection, scope: scope, days: days, now: now))
        case .quarantined(let limit):
            return .quarantined(try quarantined(on: connection, scope: scope, limit: limit))
        case .consumption(let from, let to, let limit, let now):
            return .consumption(
                try consumption(on: connection, scope: scope, from: from, to: to, limit: limit, now: now))
        case .externalPurchases(let limit):
            return .externalPurchases(try externalPurchases(on: connection, scope: scope, limit: limit))
        case .trials(let from, let to, let granularity, let now):
            return .trials(
                try trials(on: connection, scope: scope, from: from, to: to, granularity: granularity, now: now))
        case .retention(let from, let to, let months, let currency, let now):
            return .retention(
                try retention(
                    on: connection, scope: scope, from: from, to: to, months: months, reportingCurrency: currency,
                    now: now))
        case .mrr(let from, let to, let now, let currency):
            return .mrr(
                try mrr(on: connection, scope: scope, from: from, to: to, now: now, reportingCurrency: currency))
        case .revenue(let from, let to, let by, let currency):
            return .revenue(
                try revenue(
                    on: connection, scope: scope, from: from, to: to, granularity: by, reportingCurrency: currency))
        }
    }
}
