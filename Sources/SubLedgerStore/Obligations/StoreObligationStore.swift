import PostgresLibPQ
import SubLedgerCore

/// The `store_obligations` outbox as the obligation sender works it (schema step 43): claims due obligations of
/// every store with `SELECT … FOR UPDATE SKIP LOCKED` and a lease, like `ConsumptionStore`, so any number of
/// processes send each once; records each outcome.
public struct StoreObligationStore: Sendable {
    public let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// One obligation claimed to be sent.
    public struct Due: Sendable, Hashable {
        public var id: Int64
        public var appID: Int64
        public var bundleID: String
        public var obligation: StoreObligation
        /// Attempts made before this one (calls that reached the store).
        public var attempts: Int

        public init(id: Int64, appID: Int64, bundleID: String, obligation: StoreObligation, attempts: Int) {
            self.id = id
            self.appID = appID
            self.bundleID = bundleID
            self.obligation = obligation
            self.attempts = attempts
        }
    }

    /// How one attempt ended.
    public enum Outcome: Sendable, Hashable {
        /// The store accepted it; `appAccountToken` is the token Set App Account Token sent.
        case sent(appAccountToken: String?)
        /// It could not be sent or the store failed; tried again at `nextAttempt`. A nil `httpStatus` means the
        /// store was not called, which does not count as an attempt.
        case retry(nextAttempt: Instant, httpStatus: Int?, storeErrorCode: Int?, detail: String)
        /// The store refused it (a final 4xx) or it cannot be sent at all; never tried again.
        case failed(httpStatus: Int?, storeErrorCode: Int?, detail: String)
        /// Nothing was owed after all (a consumption answer without the customer's consent, or with the app's
        /// policy off): the store was not called, and will not be.
        case skipped(detail: String)
    }

    /// Marks superseded every Set App Account Token still waiting for a chain that has a newer binding to tell,
    /// then claims up to `limit` obligations due at `now` that no other process holds, oldest first, leased to
    /// `worker`.
    public func claimDue(limit: Int, lease: Duration, worker: String, now: Instant) async throws -> [Due] {
        try await pool.transaction { connection in
            try connection.query(
                """
                UPDATE store_obligations o SET state = 'superseded', leased_until = NULL, leased_by = NULL
                WHERE o.kind = 'set_app_account_token' AND o.state IN ('pending', 'retry')
                  AND (o.leased_until IS NULL OR o.leased_until < \(timestamp(now)))
                  AND EXISTS (
                    SELECT 1 FROM store_obligations n
                    WHERE n.app_id = o.app_id AND n.environment = o.environment AND n.kind = o.kind
                      AND n.transaction_id = o.transaction_id AND n.binding_sequence > o.binding_sequence)
                """)
            let rows = try connection.query(
                """
                WITH due AS (
                    SELECT obligation_id FROM store_obligations
                    WHERE state IN ('pending', 'retry')
                      AND (next_attempt_at IS NULL OR next_attempt_at <= \(timestamp(now)))
                      AND (leased_until IS NULL OR leased_until < \(timestamp(now)))
                    ORDER BY obligation_id
                    LIMIT \(limit)
                    FOR UPDATE SKIP LOCKED
                )
                UPDATE store_obligations o SET leased_until = \(timestamp(now)) +
                    \(lease.components.seconds * 1000 + lease.components.attoseconds / 1_000_000_000_000_000) *
                    interval '1 millisecond', leased_by = \(worker)
                FROM due WHERE o.obligation_id = due.obligation_id
                RETURNING o.obligation_id, o.app_id, (SELECT bundle_id FROM apps a WHERE a.app_id = o.app_id),
                    o.kind, o.environment, o.original_transaction_id, o.transaction_id, o.account_id,
                    o.binding_sequence, o.purchase_token, o.product_id, o.attempts, o.consumption_request_id,
                    o.external_purchase_report_id
                """)
            return try rows.map { row in
                guard let kind = StoreObligation.Kind(rawValue: try row.decode(String.self, at: 3)) else {
                    throw StoreError(code: .corruptRow, message: "unknown kind in store_obligations")
                }
                let payload: StoreObligation.Payload
                switch kind.store {
                case .appStore where kind == .sendConsumptionInformation:
                    guard let request = try row.decode(Int64?.self, at: 12) else {
                        throw StoreError(code: .corruptRow, message: "a consumption answer without its request")
                    }
                    payload = .consumptionRequest(id: request)
                case .appStore where kind == .reportExternalPurchase:
                    guard let report = try row.decode(Int64?.self, at: 13) else {
                        throw StoreError(
                            code: .corruptRow, message: "an external purchase report obligation without its report")
                    }
                    payload = .externalPurchaseReport(id: report)
                case .appStore:
                    payload = .appStore(bindingSequence: Int(try row.decode(Int32.self, at: 8)))
                case .googlePlay:
                    guard let token = try row.decode(String?.self, at: 9),
                        let product = try row.decode(String?.self, at: 10)
                    else {
                        throw StoreError(code: .corruptRow, message: "a Google Play obligation without its token")
                    }
                    payload = .googlePlay(purchaseToken: token, productID: product)
                default:
                    throw StoreError(code: .corruptRow, message: "\(kind.store.displayName) is owed no obligation")
                }
                let environment = try StoreEnvironment.stored(row.decode(String.self, at: 4))
                return Due(
                    id: try row.decode(Int64.self, at: 0),
                    appID: try row.decode(Int64.self, at: 1),
                    bundleID: try row.decode(String.self, at: 2),
                    obligation: StoreObligation(
                        kind: kind,
                        chain: ChainKey(
                            environment: environment, chainID: try row.decode(String.self, at: 5)),
                        transactionID: try row.decode(String.self, at: 6),
                        account: try row.decode(String?.self, at: 7).map(storedAccount),
                        payload: payload),
                    attempts: Int(try row.decode(Int32.self, at: 11)))
            }
        }
    }

    /// Records `outcome` and gives the lease back. Only an obligation still leased by `worker` changes: `false`
    /// when another process took it over meanwhile.
    @discardableResult
    public func finish(_ due: Due, _ outcome: Outcome, worker: String, now: Instant) async throws -> Bool {
        let state: String
        var calledStore = true
        var token: String?
        var nextAttempt: Instant?
        var httpStatus: Int?
        var storeErrorCode: Int?
        var detail: String?
        switch outcome {
        case .sent(let sentToken):
            state = "sent"
            token = sentToken
        case .retry(let next, let status, let code, let text):
            state = "retry"
            nextAttempt = next
            (httpStatus, storeErrorCode, detail) = (status, code, text)
            calledStore = status != nil
        case .failed(let status, let code, let text):
            state = "failed"
            (httpStatus, storeErrorCode, detail) = (status, code, text)
            calledStore = status != nil
        case .skipped(let text):
            state = "skipped"
            detail = text
            calledStore = false
        }
        let updated = try await pool.query(
            """
            UPDATE store_obligations SET state = \(state), attempts = attempts + \(calledStore ? 1 : 0),
                next_attempt_at = \(timestamp(nextAttempt)),
                app_account_token = coalesce(\(token)::uuid, app_account_token), http_status =
                    \(httpStatus.map(Int64.init)), store_error_code = \(storeErrorCode.map(Int64.init)),
                last_error = \(detail.map(LedgerStore.storableError)), sent_at = CASE WHEN \(state) = 'sent' THEN
                    \(timestamp(now)) ELSE sent_at END,
                leased_until = NULL, leased_by = NULL
            WHERE obligation_id = \(due.id) AND state IN ('pending', 'retry') AND leased_by = \(worker)
            RETURNING obligation_id
            """)
        return !updated.isEmpty
    }

    /// Gives back every lease `worker` holds (on shutdown), so other processes need not wait them out.
    public func releaseAll(worker: String) async throws {
        try await pool.query(Leases.releaseAll(in: "store_obligations", worker: worker))
    }

    /// How many obligations there are, by store, kind and state.
    public func counts() async throws -> [StoreObligationCount] {
        try await pool.query(
            """
            SELECT store, kind, state, count(*) FROM store_obligations
            GROUP BY store, kind, state ORDER BY store, kind, state
            """
        ).map { row in
            StoreObligationCount(
                store: try row.decode(String.self, at: 0), kind: try row.decode(String.self, at: 1),
                state: try row.decode(String.self, at: 2), count: try row.decode(Int64.self, at: 3))
        }
    }
}

/// A number of obligations of one store and kind in one state.
public struct StoreObligationCount: Sendable, Hashable {
    public var store: String
    public var kind: String
    public var state: String
    public var count: Int64
}
