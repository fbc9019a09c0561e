import PostgresLibPQ
import SubLedgerCore

extension LedgerStore {
    /// The two kinds of stored input that share the retry lifecycle (`pending`, `retry`, `quarantined`, ...).
    public enum StoredInputKind: String, Sendable, Hashable, CaseIterable {
        case receipt
        case notification
    }

    /// Which quarantined inputs to put back in the queue.
    public enum RequeueSelection: Sendable, Hashable {
        /// One input, by its kind and id (as `subledger report quarantined` lists them).
        case input(StoredInputKind, id: Int64)
        /// Every quarantined receipt and notification of the app.
        case app(appID: Int64)
    }

    /// A quarantined input that was (or, in a dry run, would be) put back in the queue.
    public struct RequeuedInput: Sendable, Hashable {
        public var kind: StoredInputKind
        public var id: Int64
        /// The error it was quarantined with.
        public var lastError: String?
    }

    /// Puts quarantined inputs back in the queue: `retry`, due at `now`, with the full number of attempts again,
    /// so the renewal job verifies and applies them on its next round. Only quarantined inputs move; an input in
    /// any other state is left as it is (and not returned). `dryRun` only lists what would move.
    ///
    /// The input's `last_error` records the re-queue (when, and the error it was quarantined with) until its
    /// next attempt replaces it.
    public func requeueQuarantined(_ selection: RequeueSelection, dryRun: Bool, now: Instant) async throws
        -> [RequeuedInput]
    {
        try await pool.transaction { connection in
            var requeued: [RequeuedInput] = []
            for kind in StoredInputKind.allCases {
                let (table, key) =
                    kind == .receipt ? ("receipts", "receipt_id") : ("notifications", "notification_row_id")
                let filter: String
                let value: Int64
                switch selection {
                case .input(let selected, let id):
                    guard selected == kind else { continue }
                    (filter, value) = ("\(key) = $1", id)
                case .app(let appID):
                    (filter, value) = ("app_id = $1", appID)
                }
                let rows: PostgresRows
                if dryRun {
                    rows = try connection.query(
                        "SELECT \(key), last_error FROM \(table) WHERE \(filter) AND status = 'quarantined' ORDER BY 1",
                        [value])
                } else {
                    // The old error is returned from the row as it was before the update (a self-join on the key).
                    rows = try connection.query(
                        """
                        UPDATE \(table) AS t SET status = 'retry', attempts = 0, next_attempt_at = $2::timestamptz,
                            leased_until = NULL, leased_by = NULL,
                            last_error = left('re-queued from quarantine at ' || to_char($2::timestamptz AT TIME ZONE 'UTC',
                                'YYYY-MM-DD"T"HH24:MI:SS"Z"') || '; quarantined with: ' || coalesce(old.last_error, ''), 1000)
                        FROM \(table) AS old
                        WHERE old.\(key) = t.\(key) AND t.\(filter) AND t.status = 'quarantined'
                        RETURNING t.\(key), old.last_error
                        """, [value, timestamp(now)])
                }
                for row in rows {
                    requeued.append(
                        RequeuedInput(
                            kind: kind, id: try row.decode(Int64.self, at: 0),
                            lastError: try row.decode(String?.self, at: 1)))
                }
            }
            return requeued.sorted { ($0.kind.rawValue, $0.id) < ($1.kind.rawValue, $1.id) }
        }
    }
}
