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
            try connection.query(
                """
                SELECT app_id, environment, original_transaction_id, \(milliseconds("due_at"))
                FROM webhook_clock_moments WHERE due_at <= \(timestamp(now)) ORDER BY due_at LIMIT \(limit)
                """
            ).map { row in
                DueWebhookMoment(
                    appID: try row.decode(Int64.self, at: 0),
                    chain: ChainKey(
                        environment: try .stored(row.decode(String.self, at: 1)),
                        chainID: try row.decode(String.self, at: 2)),
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
        let lockKey = "\(moment.appID):\(key.environment.rawValue):\(key.chainID)"
        let locked = try connection.query("SELECT pg_try_advisory_xact_lock(hashtextextended(\(lockKey), 0))")
            .single().decode(Bool.self, at: 0)
        guard locked else { return 0 }
        let isMoment = isMoment(key, appID: moment.appID)
        guard
            let row = try connection.query(
                """
                SELECT \(milliseconds("m.due_at")), a.catalog::text
                FROM webhook_clock_moments m JOIN apps a USING (app_id)
                WHERE \(isMoment) AND m.due_at <= \(timestamp(now))
                FOR UPDATE OF m SKIP LOCKED
                """
            ).first
        else { return 0 }
        let dueAt = Instant(millisecondsSince1970: try row.decode(Int64.self, at: 0))
        let definition = try StoreJSON.decode(App.self, from: row.decode(String.self, at: 1), what: "app")
        let app = StoredApp(appID: moment.appID, definition: definition, sharedSecret: nil, serverAPI: nil)
        if let grantID = EntitlementGrant.grantID(chainID: key.chainID) {
            // A grant's end: announced unless it was revoked before; the moment is done either way.
            let drafts =
                try EntitlementGrantStore.grant(grantID, appID: moment.appID, on: connection)?
                .expiredEvent(in: definition).map { [$0] } ?? []
            try write(drafts, cause: WebhookEventCause(kind: .clock), moments: [], app: app, now: now, on: connection)
            try connection.query("DELETE FROM webhook_clock_moments WHERE \(isMoment)")
            return drafts.count
        }
        guard let chain = try ChainRows.load([key], appID: moment.appID, forUpdate: false, on: connection).first else {
            try connection.query("DELETE FROM webhook_clock_moments WHERE \(isMoment)")
            return 0
        }
        let verdict = WebhookClockDerivation.verdict(chain: chain, moment: dueAt, now: now, app: definition)
        try write(
            verdict.drafts, cause: WebhookEventCause(kind: .clock), moments: [], app: app, now: now, on: connection)
        if let next = verdict.next {
            try connection.query("UPDATE webhook_clock_moments SET due_at = \(timestamp(next)) WHERE \(isMoment)")
        } else {
            try connection.query("DELETE FROM webhook_clock_moments WHERE \(isMoment)")
        }
        return verdict.drafts.count
    }

    /// The condition on `webhook_clock_moments` (unaliased columns) that selects the moment of `key`.
    private static func isMoment(_ key: ChainKey, appID: Int64) -> PostgresQuery {
        """
        app_id = \(appID) AND environment = \(key.environment.rawValue) \
        AND original_transaction_id = \(key.chainID)
        """
    }
}
