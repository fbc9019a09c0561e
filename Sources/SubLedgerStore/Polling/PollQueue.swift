import PostgresLibPQ
import SubLedgerCore

/// The renewal job's work, shared by any number of pollers on any machines.
///
/// Items are claimed with `SELECT … FOR UPDATE SKIP LOCKED` and marked with a lease (`leased_until`,
/// `leased_by`) in the same short transaction: concurrent pollers never claim the same item, and an item
/// whose poller died is claimed again once its lease has run out.
public struct PollQueue: Sendable {
    public let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// A subscription chain that is due for a check with Apple.
    public struct DueChain: Sendable, Hashable {
        public var appID: Int64
        public var bundleID: String
        public var key: ChainKey
        /// `verify_receipt` (legacy) or `server_api` (StoreKit 2).
        public var refreshVia: String
        /// The latest stored receipt that carried the chain (what verifyReceipt is asked about again).
        public var receiptBody: String?
        public var pollFailures: Int
    }

    /// A stored receipt or signed transaction not yet verified (Apple was down, or the request died).
    public struct PendingInput: Sendable, Hashable {
        public var receiptID: Int64
        public var appID: Int64
        public var bundleID: String
        public var kind: LedgerStore.ReceiptKind
        public var body: String
        public var account: AccountID?
        public var attempts: Int
    }

    /// Claims up to `limit` auto-renewable chains that are due at `now`: expiring within `window`, past
    /// expiry while Apple may still renew them (auto-renew on, for up to 60 days: Apple's billing retry), in
    /// billing retry or in a grace period; and not leased by another poller.
    public func claimDueChains(
        limit: Int, window: Duration, lease: Duration, worker: String, now: Instant
    ) async throws -> [DueChain] {
        try await pool.transaction { connection in
            let rows = try connection.query(
                """
                WITH due AS (
                    SELECT app_id, environment, original_transaction_id FROM chains
                    WHERE product_type = 'auto_renewable' AND state NOT IN ('revoked', 'upgraded_away')
                      AND (leased_until IS NULL OR leased_until < $1)
                      AND (next_poll_at IS NULL OR next_poll_at <= $1)
                      AND (state IN ('billing_retry', 'grace_period')
                           OR (expires_at <= $1 + $2 * interval '1 millisecond'
                               AND expires_at > $1 - interval '60 days'
                               AND will_auto_renew IS DISTINCT FROM false))
                    ORDER BY next_poll_at NULLS FIRST, expires_at
                    LIMIT $3
                    FOR UPDATE SKIP LOCKED
                )
                UPDATE chains c SET leased_until = $1 + $4 * interval '1 millisecond', leased_by = $5
                FROM due
                WHERE c.app_id = due.app_id AND c.environment = due.environment
                  AND c.original_transaction_id = due.original_transaction_id
                RETURNING c.app_id, (SELECT bundle_id FROM apps a WHERE a.app_id = c.app_id), c.environment,
                          c.original_transaction_id, c.refresh_via,
                          (SELECT body FROM receipts r WHERE r.receipt_id = c.last_receipt_id), c.poll_failures
                """,
                [timestamp(now), window.milliseconds, limit, lease.milliseconds, worker])
            return try rows.map { row in
                DueChain(
                    appID: try row.decode(Int64.self, at: 0),
                    bundleID: try row.decode(String.self, at: 1),
                    key: ChainKey(
                        environment: try .stored(row.decode(String.self, at: 2)),
                        originalTransactionID: try row.decode(String.self, at: 3)),
                    refreshVia: try row.decode(String.self, at: 4),
                    receiptBody: try row.decode(String?.self, at: 5),
                    pollFailures: Int(try row.decode(Int32.self, at: 6)))
            }
        }
    }

    /// Claims up to `limit` stored receipts and signed transactions waiting for verification: `retry` ones
    /// whose time has come, and `pending` ones older than `pendingAge` (their request died mid-way).
    public func claimPendingInputs(
        limit: Int, pendingAge: Duration, lease: Duration, worker: String, now: Instant
    ) async throws -> [PendingInput] {
        try await pool.transaction { connection in
            let rows = try connection.query(
                """
                WITH due AS (
                    SELECT receipt_id FROM receipts
                    WHERE (leased_until IS NULL OR leased_until < $1)
                      AND ((status = 'retry' AND (next_attempt_at IS NULL OR next_attempt_at <= $1))
                           OR (status = 'pending' AND received_at <= $1 - $2 * interval '1 millisecond'))
                    ORDER BY next_attempt_at NULLS FIRST, receipt_id
                    LIMIT $3
                    FOR UPDATE SKIP LOCKED
                )
                UPDATE receipts r SET leased_until = $1 + $4 * interval '1 millisecond', leased_by = $5
                FROM due WHERE r.receipt_id = due.receipt_id
                RETURNING r.receipt_id, r.app_id, (SELECT bundle_id FROM apps a WHERE a.app_id = r.app_id), r.kind,
                          r.body, r.account_id, r.attempts
                """,
                [timestamp(now), pendingAge.milliseconds, limit, lease.milliseconds, worker])
            return try rows.map { row in
                let rawKind = try row.decode(String.self, at: 3)
                guard let kind = LedgerStore.ReceiptKind(rawValue: rawKind) else {
                    throw StoreError(code: .corruptRow, message: "unknown receipt kind '\(rawKind)'")
                }
                return PendingInput(
                    receiptID: try row.decode(Int64.self, at: 0),
                    appID: try row.decode(Int64.self, at: 1),
                    bundleID: try row.decode(String.self, at: 2),
                    kind: kind,
                    body: try row.decode(String.self, at: 4),
                    account: try row.decode(String?.self, at: 5).map(storedAccount),
                    attempts: Int(try row.decode(Int32.self, at: 6)))
            }
        }
    }

    /// Ends a chain's lease after a check: `nextPollAt` is when it is next due (`nil`: decided by its state
    /// alone); a failed check counts towards the chain's backoff.
    public func finishChain(_ chain: DueChain, worker: String, failed: Bool, nextPollAt: Instant?, now: Instant) async throws {
        try await pool.query(
            """
            UPDATE chains SET leased_until = NULL, leased_by = NULL, last_polled_at = $5, next_poll_at = $6,
                poll_failures = CASE WHEN $7 THEN poll_failures + 1 ELSE 0 END
            WHERE app_id = $1 AND environment = $2 AND original_transaction_id = $3 AND leased_by = $4
            """,
            [chain.appID, chain.key.environment.rawValue, chain.key.originalTransactionID, worker, timestamp(now),
             timestamp(nextPollAt), failed])
    }

    /// Ends a stored input's lease (its status was set by whatever verified it).
    public func finishInput(_ input: PendingInput, worker: String) async throws {
        try await pool.query(
            "UPDATE receipts SET leased_until = NULL, leased_by = NULL WHERE receipt_id = $1 AND leased_by = $2",
            [input.receiptID, worker])
    }

    /// Gives back every lease `worker` holds (graceful shutdown), so other pollers need not wait them out.
    public func releaseAll(worker: String) async throws {
        try await pool.transaction { connection in
            try connection.query("UPDATE chains SET leased_until = NULL, leased_by = NULL WHERE leased_by = $1", [worker])
            try connection.query("UPDATE receipts SET leased_until = NULL, leased_by = NULL WHERE leased_by = $1", [worker])
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
