import PostgresLibPQ
import SubLedgerCore

extension GooglePlayRecords {
    /// Where an app's poll of `purchases.voidedpurchases.list` stands (schema step 39).
    public struct VoidedCursor: Sendable, Hashable {
        public var appID: Int64
        /// Every purchase voided before this has been applied; `nil` before the first complete list.
        public var polledThrough: Instant?
        /// The list in progress, when a poll stopped between its pages: its window and the next page's token.
        public var window: (start: Instant, end: Instant, pageToken: String)?

        public static func == (lhs: Self, rhs: Self) -> Bool {
            lhs.appID == rhs.appID && lhs.polledThrough == rhs.polledThrough
                && lhs.window?.start == rhs.window?.start && lhs.window?.end == rhs.window?.end
                && lhs.window?.pageToken == rhs.window?.pageToken
        }

        public func hash(into hasher: inout Hasher) {
            hasher.combine(appID)
            hasher.combine(polledThrough)
            hasher.combine(window?.pageToken)
        }
    }

    /// Leases `appID`'s cursor to `worker` when no other process holds it and its last poll is at least `every`
    /// old (made on first use); `nil` otherwise.
    public func claimVoidedCursor(appID: Int64, every interval: Duration, lease: Duration, worker: String, now: Instant)
        async throws -> VoidedCursor?
    {
        let due = now.adding(milliseconds: -Int64(interval.components.seconds) * 1000)
        let rows = try await pool.transaction { connection in
            try connection.query(
                "INSERT INTO google_play_voided_cursors (app_id) VALUES (\(appID)) ON CONFLICT (app_id) DO NOTHING")
            return try connection.query(
                """
                UPDATE google_play_voided_cursors
                SET leased_until = \(timestamp(now, plus: lease)), leased_by = \(worker)
                WHERE app_id = \(appID)
                  AND (leased_until IS NULL OR leased_until < \(timestamp(now)))
                  AND (last_polled_at IS NULL OR last_polled_at <= \(timestamp(due)) OR page_token IS NOT NULL)
                RETURNING \(milliseconds("polled_through")), \(milliseconds("window_start")),
                    \(milliseconds("window_end")), page_token
                """)
        }
        guard let row = rows.first else { return nil }
        let through = try row.decode(Int64?.self, at: 0)
        var cursor = VoidedCursor(appID: appID, polledThrough: through.map(Instant.init(millisecondsSince1970:)))
        if let start = try row.decode(Int64?.self, at: 1), let end = try row.decode(Int64?.self, at: 2),
            let token = try row.decode(String?.self, at: 3)
        {
            cursor.window = (
                Instant(millisecondsSince1970: start), Instant(millisecondsSince1970: end), token
            )
        }
        return cursor
    }

    /// Records that a page of the list over `start..<end` was applied: with `nextPageToken` the list goes on from
    /// there (kept, so a poll that stops here resumes with the next page); without one the window is complete and
    /// `polled_through` moves to `end`. Only while `worker` holds the lease; `false` when it no longer does.
    @discardableResult
    public func recordVoidedPage(
        appID: Int64, start: Instant, end: Instant, nextPageToken: String?, voided: Int, worker: String, now: Instant
    ) async throws -> Bool {
        let complete = nextPageToken == nil
        let rows = try await pool.query(
            """
            UPDATE google_play_voided_cursors SET
                polled_through = CASE WHEN \(complete) THEN \(timestamp(end)) ELSE polled_through END,
                window_start = CASE WHEN \(complete) THEN NULL ELSE \(timestamp(start)) END,
                window_end = CASE WHEN \(complete) THEN NULL ELSE \(timestamp(end)) END,
                page_token = \(nextPageToken), pages = pages + 1, voided_seen = voided_seen + \(Int64(voided)),
                last_polled_at = \(timestamp(now)), last_error = NULL
            WHERE app_id = \(appID) AND leased_by = \(worker)
            RETURNING app_id
            """)
        return !rows.isEmpty
    }

    /// Gives the cursor's lease back after a poll; `error` is kept on the row (`nil` clears it). A poll that failed
    /// on a continuation token Google no longer takes starts its window again (`restartWindow`).
    public func releaseVoidedCursor(
        appID: Int64, error: String?, restartWindow: Bool = false, worker: String, now: Instant
    ) async throws {
        try await pool.query(
            """
            UPDATE google_play_voided_cursors SET leased_until = NULL, leased_by = NULL,
                last_polled_at = \(timestamp(now)), last_error = \(error.map(LedgerStore.storableError)),
                window_start = CASE WHEN \(restartWindow) THEN NULL ELSE window_start END,
                window_end = CASE WHEN \(restartWindow) THEN NULL ELSE window_end END,
                page_token = CASE WHEN \(restartWindow) THEN NULL ELSE page_token END
            WHERE app_id = \(appID) AND leased_by = \(worker)
            """)
    }
}
