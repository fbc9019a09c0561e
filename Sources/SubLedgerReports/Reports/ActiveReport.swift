import Foundation
import PostgresLibPQ

/// Active subscribers per product, split by the offer of the period they are in.
public struct ActiveReport: Sendable, Hashable, Codable {
    /// One product's owned chains that grant access at `at`.
    public struct Row: Sendable, Hashable, Codable {
        public var bundleID: String
        public var productID: String
        /// In a free trial (`isTrialPeriod` of the chain's latest transaction).
        public var trial: Int
        /// In a paid introductory offer (`isInIntroOfferPeriod`, not a trial).
        public var intro: Int
        /// At the regular price.
        public var paid: Int
        public var total: Int
    }

    public var at: Date
    public var rows: [Row]
    public var totals: Row
}

extension Reports {
    /// Chains that grant access at `at` (effective state `active` or `grace_period`, see `EffectiveState`) and
    /// have an owner, per product, split trial / intro / paid by the flags of the chain's latest transaction
    /// purchased at or before `at` (greatest purchase date, then transaction id).
    public static func active(on connection: PostgresConnection, scope: ReportScope, at: Date) throws -> ActiveReport {
        try scope.validate(on: connection)
        let rows = try connection.query(activeSQL, scope.parameters + [at] as [any PostgresEncodable]).map { row in
            ActiveReport.Row(
                bundleID: try row.decode(String.self, at: 0), productID: try row.decode(String.self, at: 1),
                trial: try row.decode(Int.self, at: 2), intro: try row.decode(Int.self, at: 3),
                paid: try row.decode(Int.self, at: 4), total: try row.decode(Int.self, at: 5))
        }
        var totals = ActiveReport.Row(bundleID: "", productID: "", trial: 0, intro: 0, paid: 0, total: 0)
        for row in rows {
            totals.trial += row.trial
            totals.intro += row.intro
            totals.paid += row.paid
            totals.total += row.total
        }
        return ActiveReport(at: at, rows: rows, totals: totals)
    }

    static let activeSQL = """
        WITH \(ReportScope.appsCTE),
        granting AS (
            SELECT c.app_id, c.environment, c.original_transaction_id, c.product_id
            FROM chains c JOIN scope s ON s.app_id = c.app_id
            WHERE \(ReportScope.environmentCondition("c.environment")) AND c.owner_account_id IS NOT NULL
              AND c.state IN ('active', 'grace_period')
              AND \(EffectiveState.sql(at: "$3::timestamptz")) IN ('active', 'grace_period')),
        offers AS (
            SELECT g.app_id, g.product_id,
                   coalesce((t.payload -> 'transaction' ->> 'isTrialPeriod')::boolean, false) AS trial,
                   coalesce((t.payload -> 'transaction' ->> 'isInIntroOfferPeriod')::boolean, false) AS intro
            FROM granting g
            LEFT JOIN LATERAL (
                SELECT x.payload FROM transactions x
                WHERE x.app_id = g.app_id AND x.environment = g.environment
                  AND x.original_transaction_id = g.original_transaction_id AND x.purchase_date <= $3::timestamptz
                ORDER BY x.purchase_date DESC, x.transaction_id DESC LIMIT 1) t ON true)
        SELECT s.bundle_id, o.product_id,
               count(*) FILTER (WHERE o.trial),
               count(*) FILTER (WHERE o.intro AND NOT o.trial),
               count(*) FILTER (WHERE NOT o.trial AND NOT o.intro),
               count(*)
        FROM offers o JOIN scope s ON s.app_id = o.app_id
        GROUP BY 1, 2
        ORDER BY 1, 2
        """
}
