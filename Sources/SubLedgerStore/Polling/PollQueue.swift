import PostgresLibPQ
import SubLedgerCore

/// The renewal job's work, shared by any number of pollers on any machines.
///
/// Items are marked with a lease (`leased_until`, `leased_by`) in a short transaction: stored inputs are claimed
/// with `SELECT … FOR UPDATE SKIP LOCKED`; chains, which Citus distributes (and locks on one worker at a time),
/// are read as candidates and each claimed by an update that finds nothing once another poller has it. Concurrent
/// pollers never claim the same item, and an item whose poller died is claimed again once its lease has run out.
public struct PollQueue: Sendable {
    public let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// A subscription chain that is due for a check with its store.
    public struct DueChain: Sendable, Hashable {
        public var appID: Int64
        public var bundleID: String
        public var key: ChainKey
        /// How the chain is read again from its store.
        public var route: ChainRefreshRoute
        /// The latest stored receipt that carried the chain (what verifyReceipt is asked about again).
        public var receiptBody: String?
        public var pollFailures: Int
    }

    /// A stored submission not yet verified (its store was down, or the request died).
    public struct PendingInput: Sendable, Hashable {
        public var submissionID: Int64
        public var appID: Int64
        public var bundleID: String
        public var kind: SubmissionKind
        public var body: String
        public var account: AccountID?
        public var attempts: Int
        /// The environment it was applied in before, if any (verifyReceipt is asked there first).
        public var environment: StoreEnvironment?
    }

    /// A stored `chains.refresh_via`, typed.
    static func route(_ raw: String) throws -> ChainRefreshRoute {
        guard let route = ChainRefreshRoute(rawValue: raw) else {
            throw StoreError(code: .corruptRow, message: "unknown chain refresh route '\(raw)'")
        }
        return route
    }

    /// A stored `notifications.version`, typed.
    static func format(_ raw: String) throws -> NotificationFormat {
        guard let format = NotificationFormat(rawValue: raw) else {
            throw StoreError(code: .corruptRow, message: "unknown notification format '\(raw)'")
        }
        return format
    }

    /// Claims up to `limit` auto-renewable chains that are due at `now`: expiring within `window`, past
    /// expiry while their store may still renew them (auto-renew on, for up to 60 days: the App Store's billing retry), in
    /// billing retry or in a grace period; and not leased by another poller.
    public func claimDueChains(
        limit: Int, window: Duration, lease: Duration, worker: String, now: Instant
    ) async throws -> [DueChain] {
        try await pool.transaction { connection in
            // Candidates all claimed by another poller meanwhile (both read the same ones): read again, which now
            // passes over their leases, so concurrent pollers share the due chains instead of one stopping early.
            for _ in 0..<16 {
                let (candidates, claimed) = try claimDueChains(
                    limit: limit, window: window, lease: lease, worker: worker, now: now, on: connection)
                if candidates == 0 || !claimed.isEmpty { return claimed }
            }
            return []
        }
    }

    /// One attempt of `claimDueChains`: how many due chains it found, and those it claimed.
    private func claimDueChains(
        limit: Int, window: Duration, lease: Duration, worker: String, now: Instant, on connection: PostgresConnection
    ) throws -> (candidates: Int, claimed: [DueChain]) {
        let at = timestamp(now)
        // The due chains, read across every worker (Citus runs no FOR UPDATE there), with their apps.
        let candidates = try connection.query(
            """
            SELECT c.app_id, a.bundle_id, c.environment, c.original_transaction_id FROM chains c
            JOIN apps a ON a.app_id = c.app_id
            WHERE c.product_type = 'auto_renewable' AND c.state NOT IN ('revoked', 'upgraded_away')
              AND (c.leased_until IS NULL OR c.leased_until < \(at))
              AND (c.next_poll_at IS NULL OR c.next_poll_at <= \(at))
              AND (c.state IN ('billing_retry', 'grace_period')
                   OR (c.expires_at <= \(timestamp(now, plus: window))
                       AND c.expires_at > \(timestamp(now, plus: .seconds(-60 * 86_400)))
                       AND c.will_auto_renew IS DISTINCT FROM false))
            ORDER BY c.next_poll_at NULLS FIRST, c.expires_at
            LIMIT \(limit)
            """ as PostgresQuery
        ).map { row in
            (
                appID: try row.decode(Int64.self, at: 0), bundleID: try row.decode(String.self, at: 1),
                key: ChainKey(
                    environment: try .stored(row.decode(String.self, at: 2)),
                    chainID: try row.decode(String.self, at: 3))
            )
        }
        guard !candidates.isEmpty else { return (0, []) }
        // Each claimed by an update of its own row (one worker each), which finds nothing when another poller
        // claimed or checked it meanwhile: the lease is the claim. One round trip for all of them.
        let claimed = try connection.run { batch in
            let indexes = candidates.map { candidate in
                batch.append(
                    """
                    UPDATE chains SET leased_until = \(timestamp(now, plus: lease)), leased_by = \(worker)
                    WHERE app_id = \(candidate.appID) AND environment = \(candidate.key.environment.rawValue)
                      AND original_transaction_id = \(candidate.key.chainID)
                      AND (leased_until IS NULL OR leased_until < \(at))
                      AND (next_poll_at IS NULL OR next_poll_at <= \(at))
                    RETURNING refresh_via, last_receipt_id, poll_failures
                    """)
            }
            return Batched { rows in
                try zip(candidates, indexes).compactMap { candidate, index in
                    try rows[index].first.map { row in
                        (
                            candidate: candidate, route: try Self.route(row.decode(String.self, at: 0)),
                            receiptID: try row.decode(Int64?.self, at: 1),
                            pollFailures: Int(try row.decode(Int32.self, at: 2))
                        )
                    }
                }
            }
        }
        // The receipts verifyReceipt is asked about again: a coordinator table, read on its own. An erased account's
        // receipt holds the erasure's redacted body, which the store would refuse every time: its chain is checked
        // without it (through the store's server API, or skipped when the app has no key for it).
        let receiptIDs = claimed.compactMap(\.receiptID)
        var bodies: [Int64: String] = [:]
        if !receiptIDs.isEmpty {
            for row in try connection.query(
                """
                SELECT receipt_id, body FROM receipts
                WHERE receipt_id = ANY (\(PostgresArrayText.integers(receiptIDs))::text::bigint[])
                  AND body <> \(AccountErasureStore.redactedBody)
                """)
            {
                bodies[try row.decode(Int64.self, at: 0)] = try row.decode(String.self, at: 1)
            }
        }
        return (
            candidates.count,
            claimed.map { claim in
                DueChain(
                    appID: claim.candidate.appID, bundleID: claim.candidate.bundleID, key: claim.candidate.key,
                    route: claim.route, receiptBody: claim.receiptID.flatMap { bodies[$0] },
                    pollFailures: claim.pollFailures)
            }
        )
    }

    /// Claims up to `limit` stored receipts and signed transactions waiting for verification: `retry` ones
    /// whose time has come, and `pending` ones older than `pendingAge` (their request died mid-way).
    ///
    /// Claiming counts the attempt and already sets the next one by `retry`'s backoff, so an input whose
    /// application fails in any way, even by ending the process, is not claimed again before then: it can
    /// neither stall a cycle nor crash every restart. Inputs that used up their attempts are quarantined
    /// (`quarantineExhausted`) instead of claimed.
    public func claimPendingInputs(
        limit: Int, pendingAge: Duration, lease: Duration, worker: String, now: Instant,
        retry: StoredInputRetry = StoredInputRetry()
    ) async throws -> [PendingInput] {
        return try await pool.transaction { connection in
            let rows = try connection.query(
                """
                WITH due AS (
                    SELECT receipt_id FROM receipts
                    WHERE \(Self.due(age: "received_at", now: now, pendingAge: pendingAge))
                      AND attempts < \(retry.maximumAttempts)
                    ORDER BY next_attempt_at NULLS FIRST, receipt_id
                    LIMIT \(limit)
                    FOR UPDATE SKIP LOCKED
                )
                UPDATE receipts r SET leased_until = \(timestamp(now, plus: lease)),
                    leased_by = \(worker), attempts = r.attempts + 1, status = 'retry',
                    next_attempt_at = \(retry.nextAttempt(now: now, attempts: "(r.attempts + 1)")),
                    last_error = \(Self.abandonedError("r"))
                FROM due WHERE r.receipt_id = due.receipt_id
                RETURNING r.receipt_id, r.app_id, (SELECT bundle_id FROM apps a WHERE a.app_id = r.app_id), r.kind,
                          r.body, r.account_id, r.attempts, r.environment
                """ as PostgresQuery)
            return try rows.map { row in
                let rawKind = try row.decode(String.self, at: 3)
                guard let kind = SubmissionKind(rawValue: rawKind) else {
                    throw StoreError(code: .corruptRow, message: "unknown receipt kind '\(rawKind)'")
                }
                return PendingInput(
                    submissionID: try row.decode(Int64.self, at: 0),
                    appID: try row.decode(Int64.self, at: 1),
                    bundleID: try row.decode(String.self, at: 2),
                    kind: kind,
                    body: try row.decode(String.self, at: 4),
                    account: try row.decode(String?.self, at: 5).map(storedAccount),
                    attempts: Int(try row.decode(Int32.self, at: 6)),
                    environment: try row.decode(String?.self, at: 7).flatMap(StoreEnvironment.init(rawValue:)))
            }
        }
    }

    /// A stored notification not yet applied (the process died before applying it, or applying it failed).
    public struct PendingNotification: Sendable, Hashable {
        public var rowID: Int64
        public var appID: Int64
        public var bundleID: String
        /// Which store sent it, and in which format.
        public var format: NotificationFormat
        public var body: String
        /// When it arrived (a V1 notification is an observation made then).
        public var receivedAt: Instant
        public var attempts: Int
    }

    /// Claims up to `limit` stored notifications to apply, as `claimPendingInputs` claims receipts.
    public func claimPendingNotifications(
        limit: Int, pendingAge: Duration, lease: Duration, worker: String, now: Instant,
        retry: StoredInputRetry = StoredInputRetry()
    ) async throws -> [PendingNotification] {
        return try await pool.transaction { connection in
            let rows = try connection.query(
                """
                WITH due AS (
                    SELECT notification_row_id FROM notifications
                    WHERE app_id IS NOT NULL AND \(Self.due(age: "received_at", now: now, pendingAge: pendingAge))
                      AND attempts < \(retry.maximumAttempts)
                    ORDER BY next_attempt_at NULLS FIRST, notification_row_id
                    LIMIT \(limit)
                    FOR UPDATE SKIP LOCKED
                )
                UPDATE notifications n SET leased_until = \(timestamp(now, plus: lease)),
                    leased_by = \(worker), attempts = n.attempts + 1, status = 'retry',
                    next_attempt_at = \(retry.nextAttempt(now: now, attempts: "(n.attempts + 1)")),
                    last_error = \(Self.abandonedError("n"))
                FROM due WHERE n.notification_row_id = due.notification_row_id
                RETURNING n.notification_row_id, n.app_id, (SELECT bundle_id FROM apps a WHERE a.app_id = n.app_id),
                          n.version, n.body, \(milliseconds("n.received_at")), n.attempts
                """ as PostgresQuery)
            return try rows.map { row in
                PendingNotification(
                    rowID: try row.decode(Int64.self, at: 0),
                    appID: try row.decode(Int64.self, at: 1),
                    bundleID: try row.decode(String.self, at: 2),
                    format: try Self.format(row.decode(String.self, at: 3)),
                    body: try row.decode(String.self, at: 4),
                    receivedAt: Instant(millisecondsSince1970: try row.decode(Int64.self, at: 5)),
                    attempts: Int(try row.decode(Int32.self, at: 6)))
            }
        }
    }

    /// Quarantines the due receipts and notifications that have used up `retry.maximumAttempts`, or whose
    /// application ended the job twice in a row (a lease that ran out without an outcome, again: an input
    /// that makes the process trap must not take it down at every restart), and returns how many of each.
    public func quarantineExhausted(
        pendingAge: Duration, now: Instant, retry: StoredInputRetry = StoredInputRetry()
    ) async throws -> (receipts: Int, notifications: Int) {
        try await pool.transaction { connection in
            var counts: [Int] = []
            for table: PostgresQuery in ["receipts", "notifications"] {
                let rows = try connection.query(
                    """
                    UPDATE \(table) SET status = 'quarantined', next_attempt_at = NULL,
                        last_error = coalesce(last_error, 'no outcome was recorded')
                            || ' (quarantined after ' || attempts || ' attempts)'
                    WHERE \(Self.due(age: "received_at", now: now, pendingAge: pendingAge))
                      AND (attempts >= \(retry.maximumAttempts)
                           OR (leased_by IS NOT NULL AND last_error = \(Self.abandonedMessage)))
                    RETURNING 1
                    """ as PostgresQuery)
                counts.append(rows.count)
            }
            return (counts[0], counts[1])
        }
    }

    /// What a claim records on an input whose previous attempt left its lease to run out (the job died or
    /// was killed while working on it), so that a second such attempt quarantines it.
    static let abandonedMessage = "the job stopped while working on it (its lease ran out without an outcome)"

    /// The abandoned message when the row's lease ran out unreleased, else its last error.
    private static func abandonedError(_ alias: PostgresQuery) -> PostgresQuery {
        "CASE WHEN \(alias).leased_by IS NOT NULL THEN \(abandonedMessage) ELSE \(alias).last_error END"
    }

    /// Due stored inputs at `at`: not leased, and `retry` whose time has come or `pending` for longer than
    /// `pendingAge` (by `column`).
    private static func due(age column: PostgresQuery, now: Instant, pendingAge: Duration) -> PostgresQuery {
        let at = timestamp(now)
        return """
            (leased_until IS NULL OR leased_until < \(at))
            AND ((status = 'retry' AND (next_attempt_at IS NULL OR next_attempt_at <= \(at)))
                 OR (status = 'pending' AND \(column) <= \(timestamp(now, plus: .zero - pendingAge))))
            """
    }

    /// Ends a chain's lease after a check: `nextPollAt` is when it is next due (`nil`: decided by its state
    /// alone); a failed check counts towards the chain's backoff.
    public func finishChain(_ chain: DueChain, worker: String, failed: Bool, nextPollAt: Instant?, now: Instant)
        async throws
    {
        try await pool.query(
            """
            UPDATE chains SET leased_until = NULL, leased_by = NULL, last_polled_at = \(timestamp(now)),
                next_poll_at = \(timestamp(nextPollAt)),
                poll_failures = CASE WHEN \(failed) THEN poll_failures + 1 ELSE 0 END
            WHERE app_id = \(chain.appID) AND environment = \(chain.key.environment.rawValue)
              AND original_transaction_id = \(chain.key.chainID) AND leased_by = \(worker)
            """ as PostgresQuery)
    }

    /// Ends a stored input's lease (its status was set by whatever verified it).
    public func finishInput(_ input: PendingInput, worker: String) async throws {
        try await pool.query(
            """
            UPDATE receipts SET leased_until = NULL, leased_by = NULL
            WHERE receipt_id = \(input.submissionID) AND leased_by = \(worker)
            """ as PostgresQuery)
    }

    /// Ends a stored notification's lease (its status was set by whatever applied it).
    public func finishNotification(_ notification: PendingNotification, worker: String) async throws {
        try await pool.query(
            """
            UPDATE notifications SET leased_until = NULL, leased_by = NULL
            WHERE notification_row_id = \(notification.rowID) AND leased_by = \(worker)
            """ as PostgresQuery)
    }

    /// Gives back every lease `worker` holds (graceful shutdown), so other pollers need not wait them out.
    public func releaseAll(worker: String) async throws {
        try await pool.transaction { connection in
            for table: PostgresQuery in ["chains", "receipts", "notifications"] {
                try connection.query(Leases.releaseAll(in: table, worker: worker))
            }
        }
    }
}

extension Duration {
    /// Whole milliseconds.
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
