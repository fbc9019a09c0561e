import PostgresLibPQ
import SubLedgerCore

/// How far each app's notification history is known complete, per environment, and who is completing it.
///
/// A recovery claims an app and environment (a lease on its row, the way `PollQueue` leases its work), fetches
/// windows of Apple's notification history, and moves `completeUntil` forward only over a window it fetched
/// and applied entirely. The lease keeps two processes from fetching the same history at once; were it to
/// run out mid-way, the second fetch would still be harmless (notifications are deduplicated by UUID), and
/// `advance` refuses a process that no longer holds the lease.
public struct NotificationHistoryCursors: Sendable {
    public let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// One app and environment's cursor.
    public struct Cursor: Sendable, Hashable {
        public var appID: Int64
        public var bundleID: String
        public var environment: StoreEnvironment
        /// Every notification created before this instant has been fetched and applied; `nil`: never.
        public var completeUntil: Instant?
        public var lastRunAt: Instant?
        /// `complete`, `partial` or `failed`.
        public var lastResult: String?
        public var lastError: String?
    }

    /// Claims the cursor of `appID` in `environment` for `worker` until `now + lease`, creating the row on
    /// first use. `nil` when another worker holds an unexpired lease on it.
    public func claim(
        appID: Int64, environment: StoreEnvironment, worker: String, lease: Duration, now: Instant
    ) async throws -> Cursor? {
        try await pool.transaction { connection in
            // The bundle id first: Citus plans no subquery in an INSERT (its RETURNING included).
            guard let app = try connection.query("SELECT bundle_id FROM apps WHERE app_id = \(appID)").first else {
                return nil
            }
            let bundleID = try app.decode(String.self, at: 0)
            let rows = try connection.query(
                """
                INSERT INTO notification_history_cursors AS c (app_id, environment, leased_until, leased_by)
                VALUES (\(appID), \(environment.rawValue), \(timestamp(now, plus: lease)),
                    \(worker))
                ON CONFLICT (app_id, environment) DO UPDATE
                    SET leased_until = EXCLUDED.leased_until, leased_by = EXCLUDED.leased_by, updated_at = EXCLUDED.updated_at
                    WHERE c.leased_until IS NULL OR c.leased_until < \(timestamp(now)) OR c.leased_by = \(worker)
                RETURNING \(Self.columns(bundleID: "\(bundleID)::text"))
                """)
            return try rows.first.map(Self.cursor)
        }
    }

    /// Moves the cursor to `end` after the window `[start, end)` was fetched and applied, and renews the lease.
    /// The cursor moves only forward and only when the window joins what is already complete (`start` at or
    /// before the cursor, or no cursor yet), so a window fetched on its own never hides an older gap. Throws
    /// `StoreError.leaseLost` when `worker` no longer holds the lease. Returns the cursor afterwards.
    @discardableResult
    public func advance(
        appID: Int64, environment: StoreEnvironment, from start: Instant, to end: Instant, worker: String,
        lease: Duration, now: Instant
    ) async throws -> Instant? {
        try await pool.transaction { connection in
            let rows = try connection.query(
                """
                UPDATE notification_history_cursors
                SET complete_until = CASE
                        WHEN complete_until IS NULL OR (complete_until >= \(timestamp(start)) AND complete_until <
                            \(timestamp(end))) THEN \(timestamp(end))
                        ELSE complete_until END,
                    leased_until = \(timestamp(now, plus: lease)),
                    updated_at = now()
                WHERE app_id = \(appID) AND environment = \(environment.rawValue) AND leased_by = \(worker)
                RETURNING \(milliseconds("complete_until"))
                """)
            guard let row = rows.first else {
                throw StoreError(
                    code: .leaseLost,
                    message:
                        "another process took over the notification history of app \(appID) in \(environment.rawValue)")
            }
            return try row.decode(Int64?.self, at: 0).map(Instant.init(millisecondsSince1970:))
        }
    }

    /// Renews `worker`'s lease (between pages of a long window). Throws `StoreError.leaseLost` when it is gone.
    public func renewLease(
        appID: Int64, environment: StoreEnvironment, worker: String, lease: Duration, now: Instant
    ) async throws {
        let rows = try await pool.query(
            """
            UPDATE notification_history_cursors
            SET leased_until = \(timestamp(now, plus: lease))
            WHERE app_id = \(appID) AND environment = \(environment.rawValue) AND leased_by = \(worker)
            RETURNING 1
            """)
        if rows.isEmpty {
            throw StoreError(
                code: .leaseLost,
                message: "another process took over the notification history of app \(appID) in \(environment.rawValue)"
            )
        }
    }

    /// Gives the lease back and records how the run ended (`complete`, `partial`, `failed`; `error` is a
    /// message without secrets).
    public func release(
        appID: Int64, environment: StoreEnvironment, worker: String, result: String, error: String?, now: Instant
    ) async throws {
        _ = try await pool.query(
            """
            UPDATE notification_history_cursors
            SET leased_until = NULL, leased_by = NULL, last_run_at = \(timestamp(now)), last_result = \(result),
                last_error = \(error),
                updated_at = now()
            WHERE app_id = \(appID) AND environment = \(environment.rawValue) AND leased_by = \(worker)
            """)
    }

    /// Every cursor, by bundle id and environment.
    public func all() async throws -> [Cursor] {
        try await pool.query(
            """
            SELECT \(Self.columns(bundleID: "a.bundle_id")) FROM notification_history_cursors c
            JOIN apps a ON a.app_id = c.app_id
            ORDER BY a.bundle_id, c.environment
            """
        ).map(Self.cursor)
    }

    /// The columns of a cursor row aliased `c`, for `cursor(_:)`.
    private static func columns(bundleID: PostgresQuery) -> PostgresQuery {
        """
        c.app_id, \(bundleID), c.environment,
        \(milliseconds("c.complete_until")), \(milliseconds("c.last_run_at")), c.last_result, c.last_error
        """
    }

    private static func cursor(_ row: PostgresRow) throws -> Cursor {
        Cursor(
            appID: try row.decode(Int64.self, at: 0),
            bundleID: try row.decode(String.self, at: 1),
            environment: try .stored(row.decode(String.self, at: 2)),
            completeUntil: try row.decode(Int64?.self, at: 3).map(Instant.init(millisecondsSince1970:)),
            lastRunAt: try row.decode(Int64?.self, at: 4).map(Instant.init(millisecondsSince1970:)),
            lastResult: try row.decode(String?.self, at: 5),
            lastError: try row.decode(String?.self, at: 6))
    }
}
