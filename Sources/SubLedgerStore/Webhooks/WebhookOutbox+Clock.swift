import PostgresLibPQ
import SubLedgerCore

/// A clock moment that is due (`webhook_clock_moments`), as the webhook clock lists it before settling it.
public struct DueWebhookMoment: Sendable, Hashable {
    public var appID: Int64
    public var chain: ChainKey
    public var dueAt: Instant
}

extension LedgerStore {
    /// Up to `limit` moments due at `now`, earliest first, without locking them (settling locks each one).
    public func dueWebhookMoments(now: Instant, limit: Int) async throws -> [DueWebhookMoment] {
        try await pool.withConnection { connection in
            try connection.query(WebhookOutbox.dueStatement, [timestamp(now), limit]).map { row in
                DueWebhookMoment(
                    appID: try row.decode(Int64.self, at: 0),
                    chain: ChainKey(
                        environment: try .stored(row.decode(String.self, at: 1)),
                        originalTransactionID: try row.decode(String.self, at: 2)),
                    dueAt: Instant(millisecondsSince1970: try row.decode(Int64.self, at: 3)))
            }
        }
    }

    /// Settles one due moment in its own transaction and returns how many events it wrote: nothing when
    /// another clock or an apply holds the chain (it is settled there, or on a later pass) or the row is gone.
    ///
    /// Locks are taken in the apply's order (the chain, then the moment row), and the chain's only by trying,
    /// so a clock never waits for an apply: several clocks and any number of applies cannot deadlock.
    public func settleWebhookMoment(_ moment: DueWebhookMoment, now: Instant) async throws -> Int {
        try await pool.transaction { connection in
            try WebhookOutbox.settle(moment, now: now, on: connection)
        }
    }
}

extension WebhookOutbox {
    static func settle(_ moment: DueWebhookMoment, now: Instant, on connection: PostgresConnection) throws -> Int {
        let key = moment.chain
        let parameters: [any PostgresEncodable] = [moment.appID, key.environment.rawValue, key.originalTransactionID]
        let locked = try connection.query(
            tryLockStatement, ["\(moment.appID):\(key.environment.rawValue):\(key.originalTransactionID)"]
        ).single().decode(Bool.self, at: 0)
        guard locked else { return 0 }
        guard let row = try connection.query(claimStatement, parameters + [timestamp(now)]).first else { return 0 }
        let dueAt = Instant(millisecondsSince1970: try row.decode(Int64.self, at: 0))
        let definition = try StoreJSON.decode(App.self, from: row.decode(String.self, at: 1), what: "app")
        let app = StoredApp(appID: moment.appID, definition: definition, sharedSecret: nil, serverAPI: nil)
        guard let chain = try ChainRows.load([key], appID: moment.appID, forUpdate: false, on: connection).first else {
            try connection.query(deleteMomentStatement, parameters)
            return 0
        }
        let verdict = WebhookClockDerivation.verdict(chain: chain, moment: dueAt, now: now, app: definition)
        try write(
            verdict.drafts, cause: WebhookEventCause(kind: .clock), moments: [], app: app, now: now, on: connection)
        if let next = verdict.next {
            try connection.query(rescheduleStatement, parameters + [timestamp(next)])
        } else {
            try connection.query(deleteMomentStatement, parameters)
        }
        return verdict.drafts.count
    }

    static let dueStatement = PostgresStatement(
        """
        SELECT app_id, environment, original_transaction_id, \(millisecondsSQL("due_at"))
        FROM webhook_clock_moments WHERE due_at <= $1 ORDER BY due_at LIMIT $2
        """)
    static let tryLockStatement = PostgresStatement("SELECT pg_try_advisory_xact_lock(hashtextextended($1, 0))")
    static let claimStatement = PostgresStatement(
        """
        SELECT \(millisecondsSQL("m.due_at")), a.catalog::text
        FROM webhook_clock_moments m JOIN apps a USING (app_id)
        WHERE m.app_id = $1 AND m.environment = $2 AND m.original_transaction_id = $3 AND m.due_at <= $4
        FOR UPDATE OF m SKIP LOCKED
        """)
    static let deleteMomentStatement = PostgresStatement(
        "DELETE FROM webhook_clock_moments WHERE app_id = $1 AND environment = $2 AND original_transaction_id = $3")
    static let rescheduleStatement = PostgresStatement(
        """
        UPDATE webhook_clock_moments SET due_at = $4
        WHERE app_id = $1 AND environment = $2 AND original_transaction_id = $3
        """)
}
