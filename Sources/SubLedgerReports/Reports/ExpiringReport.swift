import Foundation
import PostgresLibPQ

/// Chains whose paid period ends within a window, with what is known about their renewal.
public struct ExpiringReport: Sendable, Hashable, Codable {
    public struct Row: Sendable, Hashable, Codable {
        public var bundleID: String
        public var environment: String
        public var originalTransactionID: String
        public var productID: String
        public var ownerAccountID: String?
        public var expiresAt: Date
        /// The stored state (`active`, `grace_period` or `billing_retry`).
        public var state: String
        /// Apple's auto-renew status; nil when no renewal info was ever seen.
        public var willAutoRenew: Bool?
        public var inBillingRetry: Bool
        public var graceExpiresAt: Date?
    }

    public struct Totals: Sendable, Hashable, Codable {
        public var chains: Int
        public var willAutoRenew: Int
        public var willNotAutoRenew: Int
        public var autoRenewUnknown: Int
        public var inBillingRetry: Int
    }

    public var from: Date
    public var to: Date
    /// The earliest-expiring `limit` chains of the window.
    public var rows: [Row]
    /// Over the whole window, whatever the limit.
    public var totals: Totals
    /// Whether more chains expire in the window than `rows` holds.
    public var truncated: Bool
}

extension Reports {
    /// Chains stored `active`, `grace_period` or `billing_retry` whose `expires_at` lies in
    /// [`at`, `at + within`), earliest first (at most `limit` rows; the totals count them all).
    public static func expiring(
        on connection: PostgresConnection, scope: ReportScope, at: Date, within: Duration, limit: Int
    ) throws -> ExpiringReport {
        try scope.validate(on: connection)
        let to = at.addingTimeInterval(within.timeInterval)
        let parameters = scope.parameters + [at, to] as [any PostgresEncodable]
        let rows = try connection.query(expiringSQL, parameters + [limit] as [any PostgresEncodable]).map { row in
            ExpiringReport.Row(
                bundleID: try row.decode(String.self, at: 0), environment: try row.decode(String.self, at: 1),
                originalTransactionID: try row.decode(String.self, at: 2), productID: try row.decode(String.self, at: 3),
                ownerAccountID: try row.decode(String?.self, at: 4), expiresAt: try row.decode(Date.self, at: 5),
                state: try row.decode(String.self, at: 6), willAutoRenew: try row.decode(Bool?.self, at: 7),
                inBillingRetry: try row.decode(Bool.self, at: 8), graceExpiresAt: try row.decode(Date?.self, at: 9))
        }
        let totalsRow = try connection.query(expiringTotalsSQL, parameters).single()
        let totals = ExpiringReport.Totals(
            chains: try totalsRow.decode(Int.self, at: 0), willAutoRenew: try totalsRow.decode(Int.self, at: 1),
            willNotAutoRenew: try totalsRow.decode(Int.self, at: 2), autoRenewUnknown: try totalsRow.decode(Int.self, at: 3),
            inBillingRetry: try totalsRow.decode(Int.self, at: 4))
        return ExpiringReport(from: at, to: to, rows: rows, totals: totals, truncated: totals.chains > rows.count)
    }

    static let expiringCondition = """
        \(ReportScope.environmentCondition("c.environment"))
          AND c.expires_at >= $3::timestamptz AND c.expires_at < $4::timestamptz
          AND c.state IN ('active', 'grace_period', 'billing_retry')
        """

    static let expiringSQL = """
        WITH \(ReportScope.appsCTE)
        SELECT s.bundle_id, c.environment, c.original_transaction_id, c.product_id, c.owner_account_id, c.expires_at,
               c.state, c.will_auto_renew, c.in_billing_retry, c.grace_expires_at
        FROM chains c JOIN scope s ON s.app_id = c.app_id
        WHERE \(expiringCondition)
        ORDER BY c.expires_at, s.bundle_id, c.environment, c.original_transaction_id
        LIMIT $5
        """

    static let expiringTotalsSQL = """
        WITH \(ReportScope.appsCTE)
        SELECT count(*), count(*) FILTER (WHERE c.will_auto_renew), count(*) FILTER (WHERE NOT c.will_auto_renew),
               count(*) FILTER (WHERE c.will_auto_renew IS NULL), count(*) FILTER (WHERE c.in_billing_retry)
        FROM chains c JOIN scope s ON s.app_id = c.app_id
        WHERE \(expiringCondition)
        """
}

extension Duration {
    /// The duration in seconds, as Foundation measures intervals.
    var timeInterval: TimeInterval {
        let (seconds, attoseconds) = components
        return TimeInterval(seconds) + TimeInterval(attoseconds) / 1e18
    }
}
