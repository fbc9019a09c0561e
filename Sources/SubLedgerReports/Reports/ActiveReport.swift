import PostgresLibPQ
import SubLedgerCore

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

    public var at: Instant
    public var rows: [Row]
    public var totals: Row
}

extension Reports {
    /// Chains that grant access at `at` (effective state `active` or `grace_period`, see `EffectiveState`) and
    /// have an owner, per product, split trial / intro / paid by the flags of the chain's latest transaction
    /// purchased at or before `at` (greatest purchase date, then transaction id).
    public static func active(on connection: PostgresConnection, scope: ReportScope, at: Instant) throws -> ActiveReport
    {
        try active(on: connection, scope: scope, at: at, source: .aggregate)
    }

    /// `active` from the given source (the tests compare the aggregate with the ledger).
    static func active(
        on connection: PostgresConnection, scope: ReportScope, at: Instant, source: AggregateSource
    ) throws -> ActiveReport {
        let rows = try ReportStore(on: connection, scope: scope).grantingChainsByOffer(at: at, source: source)
        var totals = ActiveReport.Row(bundleID: "", productID: "", trial: 0, intro: 0, paid: 0, total: 0)
        for row in rows {
            totals.trial += row.trial
            totals.intro += row.intro
            totals.paid += row.paid
            totals.total += row.total
        }
        return ActiveReport(at: at, rows: rows, totals: totals)
    }
}
