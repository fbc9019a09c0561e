import PostgresLibPQ
import SubLedgerCore

/// How fresh the reports' aggregates are: they follow the ledger through the report projection queue (schema step
/// 31), so every report states the moment up to which it is complete (docs/explanation/reports.md, "Freshness").
public struct ReportFreshness: Sendable, Hashable, Encodable {
    /// Every change recorded before this moment is in the aggregates: the oldest change still queued, or the
    /// report's `now` when none is.
    public var asOf: Instant
    /// Changes recorded but not projected yet (queue rows; a chain changed twice counts twice).
    public var pendingChanges: Int

    public init(asOf: Instant, pendingChanges: Int) {
        self.asOf = asOf
        self.pendingChanges = pendingChanges
    }

    /// How far the aggregates are behind `now`, in seconds (0 when nothing waits).
    public func lag(at now: Instant) -> Double {
        Double(max(0, ReportCalendar.milliseconds(from: asOf, to: now))) / 1_000
    }

    /// The freshness of `scope`'s aggregates at `now`, on `connection`.
    public static func read(scope: ReportScope, now: Instant, on connection: PostgresConnection) throws
        -> ReportFreshness
    {
        let row = try connection.query(query(scope)).single()
        // A change recorded after `now` (an injected clock behind the writers') leaves the report complete at `now`.
        let oldest = try row.optionalInstant(at: 0)
        return ReportFreshness(
            asOf: min(oldest ?? now, now), pendingChanges: Int(try row.decode(Int64.self, at: 1)))
    }

    /// The oldest queued change of `scope` and how many are queued: the index on `(app_id, changed_at)` answers
    /// the oldest per app.
    static func query(_ scope: ReportScope) -> PostgresQuery {
        """
        SELECT min(q.changed_at), count(*)::bigint FROM report_projection_queue q
        WHERE (\(scope.bundleID)::text IS NULL OR q.app_id IN (SELECT app_id FROM apps WHERE bundle_id = \(scope.bundleID)::text))
          AND (\(scope.environment)::text IS NULL OR q.environment = \(scope.environment)::text)
        """
    }
}
