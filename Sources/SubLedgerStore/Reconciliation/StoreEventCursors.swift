import PostgresLibPQ
import SubLedgerCore

/// Each app's place in a store's events list (`store_event_cursors`, schema step 60): the newest event read and
/// applied, leased to one reader at a time. One table for every store that lists its events (Stripe, Paddle), keyed by
/// (store, app).
public struct StoreEventCursors: Sendable {
    public let pool: PostgresPool
    /// The store whose lists these cursors keep.
    public let store: Store

    public init(pool: PostgresPool, store: Store) {
        self.pool = pool
        self.store = store
    }

    /// A claimed cursor: the newest event applied, `nil` before the first read.
    public struct Cursor: Sendable, Hashable {
        public var appID: Int64
        public var lastEventID: String?
    }

    /// Leases `appID`'s cursor to `worker` when its last read is `interval` old and no other reader holds it.
    public func claim(appID: Int64, every interval: Duration, lease: Duration, worker: String, now: Instant)
        async throws -> Cursor?
    {
        let due = now.adding(milliseconds: -Int64(interval.components.seconds) * 1000)
        let rows = try await pool.transaction { connection in
            try connection.query(
                """
                INSERT INTO store_event_cursors (store, app_id) VALUES (\(store.rawValue), \(appID))
                ON CONFLICT (store, app_id) DO NOTHING
                """)
            return try connection.query(
                """
                UPDATE store_event_cursors
                SET leased_until = \(timestamp(now, plus: lease)), leased_by = \(worker)
                WHERE store = \(store.rawValue) AND app_id = \(appID)
                  AND (leased_until IS NULL OR leased_until < \(timestamp(now)))
                  AND (last_polled_at IS NULL OR last_polled_at <= \(timestamp(due)))
                RETURNING last_event_id
                """)
        }
        guard let row = rows.first else { return nil }
        return Cursor(appID: appID, lastEventID: try row.decode(String?.self, at: 0))
    }

    /// Moves the cursor to `eventID` after the events up to it were applied; `false` when the lease was lost.
    public func advance(appID: Int64, to eventID: String, events: Int, worker: String, now: Instant) async throws
        -> Bool
    {
        let rows = try await pool.query(
            """
            UPDATE store_event_cursors SET last_event_id = \(eventID), events_seen = events_seen + \(Int64(events)),
                last_polled_at = \(timestamp(now)), last_error = NULL
            WHERE store = \(store.rawValue) AND app_id = \(appID) AND leased_by = \(worker)
            RETURNING app_id
            """)
        return !rows.isEmpty
    }

    /// Gives the lease back after a read; `error` is kept on the row (`nil` clears it).
    public func release(appID: Int64, error: String?, worker: String, now: Instant) async throws {
        try await pool.query(
            """
            UPDATE store_event_cursors SET leased_until = NULL, leased_by = NULL,
                last_polled_at = \(timestamp(now)), last_error = \(error.map(LedgerStore.storableError))
            WHERE store = \(store.rawValue) AND app_id = \(appID) AND leased_by = \(worker)
            """)
    }
}
