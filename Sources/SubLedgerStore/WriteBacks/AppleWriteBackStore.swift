import PostgresLibPQ
import SubLedgerCore

/// The `apple_write_backs` outbox as `subledger poll` works it (schema step 30): claims due write-backs with
/// `SELECT … FOR UPDATE SKIP LOCKED` and a lease, like `ConsumptionStore`, so any number of pollers send each
/// once; records each outcome; gives accounts the app account tokens written back.
public struct AppleWriteBackStore: Sendable {
    public let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// One write-back claimed to be sent.
    public struct Due: Sendable, Hashable {
        public var id: Int64
        public var appID: Int64
        public var bundleID: String
        public var kind: AppleWriteBack.Kind
        public var environment: StoreEnvironment
        public var transactionID: String
        public var account: AccountID
        /// Attempts made before this one.
        public var attempts: Int
    }

    /// How one attempt ended.
    public enum Outcome: Sendable, Hashable {
        /// Apple accepted it; `token` is the app account token sent (Set App Account Token).
        case sent(token: String?)
        /// It could not be sent or Apple failed; tried again at `nextAttempt`.
        case retry(nextAttempt: Instant, httpStatus: Int?, appleErrorCode: Int?, detail: String)
        /// Apple refused it (4xx) or it cannot be sent at all; never tried again.
        case failed(httpStatus: Int?, appleErrorCode: Int?, detail: String)
    }

    /// Marks superseded every Set App Account Token still waiting for a chain that has a newer binding to tell,
    /// then claims up to `limit` write-backs due at `now` that no other process holds, leased to `worker`.
    public func claimDue(limit: Int, lease: Duration, worker: String, now: Instant) async throws -> [Due] {
        try await pool.transaction { connection in
            try connection.query(
                """
                UPDATE apple_write_backs w SET state = 'superseded', leased_until = NULL, leased_by = NULL
                WHERE w.kind = 'set_app_account_token' AND w.state IN ('pending', 'retry')
                  AND (w.leased_until IS NULL OR w.leased_until < \(timestamp(now)))
                  AND EXISTS (
                    SELECT 1 FROM apple_write_backs n
                    WHERE n.app_id = w.app_id AND n.environment = w.environment AND n.kind = w.kind
                      AND n.transaction_id = w.transaction_id AND n.sequence > w.sequence)
                """)
            let rows = try connection.query(
                """
                WITH due AS (
                    SELECT write_back_id FROM apple_write_backs
                    WHERE state IN ('pending', 'retry')
                      AND (next_attempt_at IS NULL OR next_attempt_at <= \(timestamp(now)))
                      AND (leased_until IS NULL OR leased_until < \(timestamp(now)))
                    ORDER BY write_back_id
                    LIMIT \(limit)
                    FOR UPDATE SKIP LOCKED
                )
                UPDATE apple_write_backs w SET leased_until = \(timestamp(now)) +
                    \(lease.components.seconds * 1000 + lease.components.attoseconds / 1_000_000_000_000_000) *
                    interval '1 millisecond', leased_by = \(worker)
                FROM due WHERE w.write_back_id = due.write_back_id
                RETURNING w.write_back_id, w.app_id, (SELECT bundle_id FROM apps a WHERE a.app_id = w.app_id),
                    w.kind, w.environment, w.transaction_id, w.account_id, w.attempts
                """)
            return try rows.map { row in
                guard let kind = AppleWriteBack.Kind(rawValue: try row.decode(String.self, at: 3)) else {
                    throw StoreError(code: .corruptRow, message: "unknown write-back kind in apple_write_backs")
                }
                return Due(
                    id: try row.decode(Int64.self, at: 0),
                    appID: try row.decode(Int64.self, at: 1),
                    bundleID: try row.decode(String.self, at: 2),
                    kind: kind,
                    environment: try .stored(row.decode(String.self, at: 4)),
                    transactionID: try row.decode(String.self, at: 5),
                    account: try storedAccount(row.decode(String.self, at: 6)),
                    attempts: Int(try row.decode(Int32.self, at: 7)))
            }
        }
    }

    /// The app account token that names `account` at Apple: its id when that is a UUID (lower-cased), otherwise
    /// the token SubLedger gave it, made now if it has none (`account_tokens`; the ledger resolves it to the account).
    public func token(for account: AccountID, appID: Int64) async throws -> String {
        if UUIDFormat.isUUID(account.rawValue) { return account.rawValue.lowercased() }
        return try await pool.transaction { connection in
            // One token per account: two pollers making one at once take turns.
            try connection.query(
                """
                SELECT pg_advisory_xact_lock(hashtextextended('account-token/' || \(appID)::bigint::text || '/' ||
                    \(account.rawValue), 0))
                """)
            try connection.query(
                """
                INSERT INTO account_tokens (app_id, token, account_id)
                SELECT \(appID), gen_random_uuid(), \(account.rawValue)
                WHERE NOT EXISTS (SELECT 1 FROM account_tokens WHERE app_id = \(appID) AND account_id =
                    \(account.rawValue))
                """)
            return try connection.query(
                """
                SELECT token::text FROM account_tokens WHERE app_id = \(appID) AND account_id = \(account.rawValue)
                    ORDER BY created_at LIMIT 1
                """
            ).single().decode(String.self, at: 0)
        }
    }

    /// Records `outcome` and gives the lease back. Only a write-back still leased by `worker` changes: `false`
    /// when another process took it over meanwhile.
    @discardableResult
    public func finish(_ due: Due, _ outcome: Outcome, worker: String, now: Instant) async throws -> Bool {
        let state: String
        var calledApple = true
        var token: String?
        var nextAttempt: Instant?
        var httpStatus: Int?
        var appleErrorCode: Int?
        var detail: String?
        switch outcome {
        case .sent(let sentToken):
            state = "sent"
            token = sentToken
        case .retry(let next, let status, let code, let text):
            state = "retry"
            nextAttempt = next
            (httpStatus, appleErrorCode, detail) = (status, code, text)
            calledApple = status != nil
        case .failed(let status, let code, let text):
            state = "failed"
            (httpStatus, appleErrorCode, detail) = (status, code, text)
            calledApple = status != nil
        }
        let updated = try await pool.query(
            """
            UPDATE apple_write_backs SET state = \(state), attempts = attempts + \(calledApple ? 1 : 0),
                next_attempt_at = \(timestamp(nextAttempt)),
                app_account_token = coalesce(\(token)::uuid, app_account_token), http_status =
                    \(httpStatus.map(Int64.init)), apple_error_code = \(appleErrorCode.map(Int64.init)),
                last_error = \(detail.map(LedgerStore.storableError)), sent_at = CASE WHEN \(state) = 'sent' THEN
                    \(timestamp(now)) ELSE sent_at END,
                leased_until = NULL, leased_by = NULL
            WHERE write_back_id = \(due.id) AND state IN ('pending', 'retry') AND leased_by = \(worker)
            RETURNING write_back_id
            """)
        return !updated.isEmpty
    }

    /// Gives back every lease `worker` holds (on shutdown), so other processes need not wait them out.
    public func releaseAll(worker: String) async throws {
        try await pool.query(Leases.releaseAll(in: "apple_write_backs", worker: worker))
    }

    /// How many write-backs there are, by kind and state, for the admin page and `/metrics`.
    public func counts() async throws -> [AppleWriteBackCount] {
        try await pool.query(
            "SELECT kind, state, count(*) FROM apple_write_backs GROUP BY kind, state ORDER BY kind, state"
        ).map { row in
            AppleWriteBackCount(
                kind: try row.decode(String.self, at: 0), state: try row.decode(String.self, at: 1),
                count: try row.decode(Int64.self, at: 2))
        }
    }
}

/// A number of write-backs of one kind in one state.
public struct AppleWriteBackCount: Sendable, Hashable {
    public var kind: String
    public var state: String
    public var count: Int64
}
