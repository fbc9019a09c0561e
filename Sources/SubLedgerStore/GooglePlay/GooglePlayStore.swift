import PostgresLibPQ
import SubLedgerCore

/// Google Play's tables beside the ledger (schema step 38): the lineage of purchase tokens, and the
/// acknowledgement outbox as the sender works it (claimed with `FOR UPDATE SKIP LOCKED` and a lease, like the
/// Apple write-backs, so any number of processes send each once).
public struct GooglePlayStore: Sendable {
    public let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    // MARK: Purchase tokens

    /// The chain (its original transaction id) `purchaseToken` belongs to, if the token was seen before.
    public func chain(ofToken purchaseToken: String, appID: Int64) async throws -> ChainKey? {
        let rows = try await pool.query(
            """
            SELECT environment, original_transaction_id FROM google_purchase_tokens
            WHERE app_id = \(appID) AND purchase_token = \(purchaseToken)
            """)
        guard let row = rows.first else { return nil }
        return ChainKey(
            environment: try .stored(row.decode(String.self, at: 0)),
            originalTransactionID: try row.decode(String.self, at: 1))
    }

    /// Records that `purchaseToken` belongs to `chain` (Google's lineage, so a repeat records nothing) and
    /// returns the chain the token is recorded on: the first recording wins.
    @discardableResult
    public func record(
        token purchaseToken: String, chain: ChainKey, linkedPurchaseToken: String?, appID: Int64
    ) async throws -> ChainKey {
        try await pool.query(
            """
            INSERT INTO google_purchase_tokens (app_id, purchase_token, environment, original_transaction_id,
                linked_purchase_token)
            VALUES (\(appID), \(purchaseToken), \(chain.environment.rawValue), \(chain.originalTransactionID),
                \(linkedPurchaseToken))
            ON CONFLICT (app_id, purchase_token) DO NOTHING
            """)
        return try await self.chain(ofToken: purchaseToken, appID: appID) ?? chain
    }

    // MARK: Acknowledgements

    /// One acknowledgement claimed to be sent.
    public struct DueAcknowledgement: Sendable, Hashable {
        public var id: Int64
        public var appID: Int64
        public var bundleID: String
        public var kind: GooglePlayAcknowledgement.Kind
        public var purchaseToken: String
        public var productID: String
        /// Attempts made before this one.
        public var attempts: Int
    }

    /// How one attempt ended.
    public enum Outcome: Sendable, Hashable {
        /// Google accepted it.
        case sent
        /// It could not be sent or Google failed; tried again at `nextAttempt`.
        case retry(nextAttempt: Instant, httpStatus: Int?, detail: String)
        /// Google refused it for good (a 4xx other than authentication), or it cannot be sent at all.
        case failed(httpStatus: Int?, detail: String)
    }

    /// Claims up to `limit` acknowledgements due at `now` that no other process holds, leased to `worker`.
    public func claimDue(limit: Int, lease: Duration, worker: String, now: Instant) async throws
        -> [DueAcknowledgement]
    {
        let rows = try await pool.query(
            """
            WITH due AS (
                SELECT acknowledgement_id FROM google_play_acknowledgements
                WHERE state IN ('pending', 'retry')
                  AND (next_attempt_at IS NULL OR next_attempt_at <= \(timestamp(now)))
                  AND (leased_until IS NULL OR leased_until < \(timestamp(now)))
                ORDER BY acknowledgement_id
                LIMIT \(limit)
                FOR UPDATE SKIP LOCKED
            )
            UPDATE google_play_acknowledgements g SET leased_until = \(timestamp(now)) +
                \(lease.components.seconds * 1000 + lease.components.attoseconds / 1_000_000_000_000_000) *
                interval '1 millisecond', leased_by = \(worker)
            FROM due WHERE g.acknowledgement_id = due.acknowledgement_id
            RETURNING g.acknowledgement_id, g.app_id, (SELECT bundle_id FROM apps a WHERE a.app_id = g.app_id),
                g.kind, g.purchase_token, g.product_id, g.attempts
            """)
        return try rows.map { row in
            guard let kind = GooglePlayAcknowledgement.Kind(rawValue: try row.decode(String.self, at: 3)) else {
                throw StoreError(code: .corruptRow, message: "unknown kind in google_play_acknowledgements")
            }
            return DueAcknowledgement(
                id: try row.decode(Int64.self, at: 0), appID: try row.decode(Int64.self, at: 1),
                bundleID: try row.decode(String.self, at: 2), kind: kind,
                purchaseToken: try row.decode(String.self, at: 4), productID: try row.decode(String.self, at: 5),
                attempts: Int(try row.decode(Int32.self, at: 6)))
        }
    }

    /// Records `outcome` and gives the lease back. Only a row still leased by `worker` changes: `false` when
    /// another process took it over meanwhile.
    @discardableResult
    public func finish(_ due: DueAcknowledgement, _ outcome: Outcome, worker: String, now: Instant) async throws
        -> Bool
    {
        let state: String
        var nextAttempt: Instant?
        var httpStatus: Int?
        var detail: String?
        var calledGoogle = true
        switch outcome {
        case .sent:
            state = "sent"
        case .retry(let next, let status, let text):
            state = "retry"
            (nextAttempt, httpStatus, detail) = (next, status, text)
            calledGoogle = status != nil
        case .failed(let status, let text):
            state = "failed"
            (httpStatus, detail) = (status, text)
            calledGoogle = status != nil
        }
        let updated = try await pool.query(
            """
            UPDATE google_play_acknowledgements SET state = \(state), attempts = attempts + \(calledGoogle ? 1 : 0),
                next_attempt_at = \(timestamp(nextAttempt)), http_status = \(httpStatus.map(Int64.init)),
                last_error = \(detail.map(LedgerStore.storableError)),
                sent_at = CASE WHEN \(state) = 'sent' THEN \(timestamp(now)) ELSE sent_at END,
                leased_until = NULL, leased_by = NULL
            WHERE acknowledgement_id = \(due.id) AND state IN ('pending', 'retry') AND leased_by = \(worker)
            RETURNING acknowledgement_id
            """)
        return !updated.isEmpty
    }

    /// Gives back every lease `worker` holds (on shutdown), so other processes need not wait them out.
    public func releaseAll(worker: String) async throws {
        try await pool.query(Leases.releaseAll(in: "google_play_acknowledgements", worker: worker))
    }

    /// The acknowledgement state of `purchaseToken` (`pending`, `retry`, `sent`, `failed`), if one is owed.
    public func acknowledgementState(ofToken purchaseToken: String, appID: Int64) async throws -> String? {
        try await pool.query(
            """
            SELECT state FROM google_play_acknowledgements
            WHERE app_id = \(appID) AND purchase_token = \(purchaseToken)
            """
        ).first?.decode(String.self, at: 0)
    }
}
