import PostgresLibPQ
import SubLedgerCore

extension LedgerStore {
    /// The two kinds of stored input that share the retry lifecycle (`pending`, `retry`, `quarantined`, ...).
    public enum StoredInputKind: String, Sendable, Hashable, CaseIterable {
        /// What an app server submitted: an app receipt or a signed transaction (`receipts` table). Named
        /// `receipt` where operators see it (the CLI's `--receipt`, reports, metrics), after that table.
        case submission = "receipt"
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
    /// Each re-queue is recorded in the input's history (`input_events`, append-only; `inputHistory`): when, by
    /// `actor` (who or what asked), and the state it left. The input's `last_error` also notes the re-queue (when,
    /// and the error it was quarantined with) until its next attempt replaces it.
    public func requeueQuarantined(_ selection: RequeueSelection, dryRun: Bool, actor: String, now: Instant)
        async throws -> [RequeuedInput]
    {
        let actor = actor.isEmpty ? "unknown" : String(String.UnicodeScalarView(actor.unicodeScalars.prefix(500)))
        return try await pool.transaction { connection in
            var requeued: [RequeuedInput] = []
            for kind in StoredInputKind.allCases {
                let (table, key): (PostgresQuery, PostgresQuery) =
                    kind == .submission ? ("receipts", "receipt_id") : ("notifications", "notification_row_id")
                let selected: PostgresQuery
                switch selection {
                case .input(let selectedKind, let id):
                    guard selectedKind == kind else { continue }
                    selected = "\(key) = \(id)"
                case .app(let appID):
                    selected = "app_id = \(appID)"
                }
                let rows: PostgresRows
                if dryRun {
                    rows = try connection.query(
                        "SELECT \(key), last_error FROM \(table) WHERE \(selected) AND status = 'quarantined' ORDER BY 1"
                            as PostgresQuery)
                } else {
                    // The old state is returned from the row as it was before the update (a self-join on the key),
                    // and recorded as the re-queue's event in the same statement.
                    let at = timestamp(now)
                    rows = try connection.query(
                        """
                        WITH moved AS (
                            UPDATE \(table) AS t SET status = 'retry', attempts = 0, next_attempt_at = \(at)::timestamptz,
                                leased_until = NULL, leased_by = NULL,
                                last_error = left('re-queued from quarantine at ' || to_char(\(at)::timestamptz AT TIME ZONE 'UTC',
                                    'YYYY-MM-DD"T"HH24:MI:SS"Z"') || '; quarantined with: ' || coalesce(old.last_error, ''), 1000)
                            FROM \(table) AS old
                            WHERE old.\(key) = t.\(key) AND t.\(selected) AND t.status = 'quarantined'
                            RETURNING t.\(key) AS id, t.app_id, old.status, old.attempts, old.last_error),
                        recorded AS (
                            INSERT INTO input_events (input_kind, input_id, app_id, event, occurred_at, actor,
                                previous_status, previous_attempts, previous_error)
                            SELECT \(kind.rawValue), id, app_id, 'requeued', \(at)::timestamptz, \(String(actor.prefix(500))),
                                status, attempts, last_error
                            FROM moved)
                        SELECT id, last_error FROM moved
                        """ as PostgresQuery)
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

    /// Something that happened to a stored input, as its history records it (`input_events`).
    public struct InputEvent: Sendable, Hashable {
        /// What happened: `requeued` (put back from quarantine).
        public var event: String
        public var occurredAt: Instant
        /// Who or what did it (for a re-queue: the command, and the user that ran it).
        public var actor: String
        /// The input's state before: status, attempts, last error.
        public var previousStatus: String
        public var previousAttempts: Int
        public var previousError: String?
    }

    /// A stored input's state now and its recorded history, oldest event first.
    public struct InputHistory: Sendable, Hashable {
        public var kind: StoredInputKind
        public var id: Int64
        public var status: String
        public var attempts: Int
        public var lastError: String?
        public var receivedAt: Instant
        public var appliedAt: Instant?
        public var events: [InputEvent]
    }

    /// The state and history of the stored notification Apple identified as `notificationID` (its
    /// `notificationUUID`) for the app `appID`; nil when it has not arrived.
    public func notificationHistory(appID: Int64, notificationID: String) async throws -> InputHistory? {
        let rows = try await pool.query(
            """
            SELECT notification_row_id FROM notifications
            WHERE notification_id = \(notificationID) AND (app_id = \(appID) OR app_id IS NULL)
            ORDER BY notification_row_id LIMIT 1
            """ as PostgresQuery)
        guard let id = try rows.first?.decode(Int64.self, at: 0) else { return nil }
        return try await inputHistory(.notification, id: id)
    }

    /// The state and history of one stored input; nil when there is no such input.
    public func inputHistory(_ kind: StoredInputKind, id: Int64) async throws -> InputHistory? {
        let (table, key): (PostgresQuery, PostgresQuery) =
            kind == .submission ? ("receipts", "receipt_id") : ("notifications", "notification_row_id")
        return try await pool.withConnection { connection in
            let rows = try connection.query(
                """
                SELECT status, attempts, last_error, \(milliseconds("received_at")), \(milliseconds("applied_at"))
                FROM \(table) WHERE \(key) = \(id)
                """ as PostgresQuery)
            guard let row = rows.first else { return nil }
            var history = InputHistory(
                kind: kind, id: id, status: try row.decode(String.self, at: 0),
                attempts: Int(try row.decode(Int32.self, at: 1)), lastError: try row.decode(String?.self, at: 2),
                receivedAt: Instant(millisecondsSince1970: try row.decode(Int64.self, at: 3)),
                appliedAt: try row.decode(Int64?.self, at: 4).map(Instant.init(millisecondsSince1970:)), events: [])
            let events = try connection.query(
                """
                SELECT event, \(milliseconds("occurred_at")), actor, previous_status, previous_attempts, previous_error
                FROM input_events WHERE input_kind = \(kind.rawValue) AND input_id = \(id) ORDER BY event_id
                """ as PostgresQuery)
            history.events = try events.map { event in
                InputEvent(
                    event: try event.decode(String.self, at: 0),
                    occurredAt: Instant(millisecondsSince1970: try event.decode(Int64.self, at: 1)),
                    actor: try event.decode(String.self, at: 2), previousStatus: try event.decode(String.self, at: 3),
                    previousAttempts: Int(try event.decode(Int32.self, at: 4)),
                    previousError: try event.decode(String?.self, at: 5))
            }
            return history
        }
    }
}
