import Foundation
import PostgresLibPQ
import SubLedgerCore

/// A grant as recorded: the grant, its app, and who did what and why.
public struct EntitlementGrantRecord: Sendable, Hashable {
    public var grant: EntitlementGrant
    public var bundleID: String
    public var reason: String
    /// The name of the API key (or the operator the CLI was told) that granted it.
    public var grantedBy: String
    /// Who revoked it, when revoked.
    public var revokedBy: String?
    public var idempotencyKey: String?

    public init(
        grant: EntitlementGrant, bundleID: String, reason: String, grantedBy: String, revokedBy: String?,
        idempotencyKey: String?
    ) {
        self.grant = grant
        self.bundleID = bundleID
        self.reason = reason
        self.grantedBy = grantedBy
        self.revokedBy = revokedBy
        self.idempotencyKey = idempotencyKey
    }
}

/// Granted entitlements (`entitlement_grants`, schema step 44): each grant and each revocation is written in one
/// transaction with its ledger entry (kind `manual_grant` or `manual_revoke`), the entry's hash-chain link (each
/// grant is a chain of its own, `EntitlementGrant.chainID`) and its webhook event in the outbox.
public struct EntitlementGrantStore: Sendable {
    public let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// Records `grant` for `app` unless the account has a grant with `idempotencyKey` already: then that one is
    /// returned and nothing is written (`created` false).
    public func create(
        _ grant: EntitlementGrant, app: StoredApp, reason: String, grantedBy: String, idempotencyKey: String?,
        now: Instant
    ) async throws -> (record: EntitlementGrantRecord, created: Bool) {
        try await pool.transaction { connection in
            // An erased account is granted nothing (docs/guides/accounts.md, "Erasing an account").
            if try AccountErasureStore.isErased(grant.account, app: app, on: connection) {
                throw AccountErasureConflict.erased
            }
            let inserted = try connection.query(
                """
                INSERT INTO entitlement_grants (app_id, account_id, grant_id, environment, entitlement_id, starts_at,
                    ends_at, reason, granted_by, idempotency_key)
                VALUES (\(app.appID), \(grant.account.rawValue), \(grant.grantID)::uuid, \(grant.environment.rawValue),
                    \(grant.entitlementID), \(timestamp(grant.startsAt)), \(timestamp(grant.endsAt)), \(reason),
                    \(grantedBy), \(idempotencyKey))
                ON CONFLICT (app_id, account_id, idempotency_key) DO NOTHING
                RETURNING grant_id
                """)
            guard inserted.first != nil else {
                guard let idempotencyKey,
                    let existing = try Self.records(
                        app: app, account: grant.account, idempotencyKey: idempotencyKey, on: connection
                    ).first
                else { throw StoreError(code: .corruptRow, message: "a grant's idempotency key conflicts") }
                return (existing, false)
            }
            // The account is known from now on, as after its first purchase (the admin page's search finds it).
            _ = try connection.query(AccountRows.ensure(grant.account, appID: app.appID))
            // Entitlement reads find the grant in the read model (schema step 53).
            try EntitlementPeriodRows.replace(grantOf: grant, appID: app.appID, on: connection)
            let record = EntitlementGrantRecord(
                grant: grant, bundleID: app.definition.bundleID, reason: reason, grantedBy: grantedBy,
                revokedBy: nil, idempotencyKey: idempotencyKey)
            try Self.writeEntry(
                of: grant, kind: "manual_grant", at: grant.startsAt, actor: grantedBy, reason: reason, app: app,
                on: connection)
            // The clock announces the grant's end (`entitlement.expired`) at `endsAt`, unless it is revoked before.
            try WebhookOutbox.write(
                [grant.grantedEvent(in: app.definition)], cause: WebhookEventCause(kind: .admin, id: "grant"),
                moments: [grant.expiryMoment], app: app, now: now, on: connection)
            return (record, true)
        }
    }

    /// Revokes grant `grantID` of `account` at `now`; nil when the account has no such grant, and
    /// `AccountErasureConflict.erased` when the account was erased. A grant revoked already is returned as it is
    /// (the first revocation stands, nothing is written).
    public func revoke(
        grantID: String, of account: AccountID, app: StoredApp, revokedBy: String, now: Instant
    ) async throws -> EntitlementGrantRecord? {
        try await pool.transaction { connection in
            guard
                var record = try Self.records(
                    app: app, account: account, grantID: grantID, forUpdate: true, on: connection
                ).first
            else {
                // An erased account's grants moved to its pseudonym: a revocation naming the id is refused as erased.
                if try AccountErasureStore.isErased(account, app: app, on: connection) {
                    throw AccountErasureConflict.erased
                }
                return nil
            }
            guard record.grant.revokedAt == nil else { return record }
            let wasActive = record.grant.contains(now)
            // Revoked before it started (a grant starting later): it ends when it would have begun.
            let revokedAt = max(now, record.grant.startsAt)
            _ = try connection.query(
                """
                UPDATE entitlement_grants SET revoked_at = \(timestamp(revokedAt)), revoked_by = \(revokedBy)
                WHERE app_id = \(app.appID) AND account_id = \(account.rawValue) AND grant_id = \(grantID)::uuid
                """)
            record.grant.revokedAt = revokedAt
            record.revokedBy = revokedBy
            try EntitlementPeriodRows.replace(grantOf: record.grant, appID: app.appID, on: connection)
            try Self.writeEntry(
                of: record.grant, kind: "manual_revoke", at: revokedAt, actor: revokedBy, reason: record.reason,
                app: app, on: connection)
            if wasActive, let event = record.grant.revokedEvent(in: app.definition) {
                try WebhookOutbox.write(
                    [event], cause: WebhookEventCause(kind: .admin, id: "grant"), moments: [], app: app, now: now,
                    on: connection)
            }
            return record
        }
    }

    /// The grants of `account` in `app`, revoked and ended ones included, oldest first.
    public func grants(of account: AccountID, app: StoredApp) async throws -> [EntitlementGrantRecord] {
        try await pool.withConnection { connection in
            try Self.records(app: app, account: account, on: connection)
        }
    }

    /// The grant `grantID` of app `appID`, whatever its account (the webhook clock knows only the grant's chain:
    /// on a Citus cluster this asks every shard, once per grant that ends).
    static func grant(_ grantID: String, appID: Int64, on connection: PostgresConnection) throws -> EntitlementGrant? {
        try connection.query(
            """
            SELECT account_id, environment, entitlement_id, \(milliseconds("starts_at")), \(milliseconds("ends_at")),
                \(milliseconds("revoked_at"))
            FROM entitlement_grants WHERE app_id = \(appID) AND grant_id = \(grantID)::uuid
            """
        ).first.map { row in
            EntitlementGrant(
                grantID: grantID, account: try storedAccount(row.decode(String.self, at: 0)),
                entitlementID: try row.decode(String.self, at: 2),
                environment: try StoreEnvironment.stored(row.decode(String.self, at: 1)),
                startsAt: Instant(millisecondsSince1970: try row.decode(Int64.self, at: 3)),
                endsAt: Instant(millisecondsSince1970: try row.decode(Int64.self, at: 4)),
                revokedAt: try row.decode(Int64?.self, at: 5).map(Instant.init(millisecondsSince1970:)))
        }
    }

    /// Who granted and why, as the ledger entry's `reason` holds them (hashed with the entry).
    private struct EntryReason: Encodable {
        var actor: String
        var reason: String
    }

    /// Writes the ledger entry of a grant or a revocation and links it into the grant's chain.
    private static func writeEntry(
        of grant: EntitlementGrant, kind: String, at instant: Instant, actor: String, reason: String,
        app: StoredApp, on connection: PostgresConnection
    ) throws {
        let product = EntitlementGrant.product(for: grant.entitlementID, in: app.definition)?.productID ?? ""
        let entryReason = try StoreJSON.encode(EntryReason(actor: actor, reason: reason))
        _ = try connection.query(
            """
            INSERT INTO ledger_entries (app_id, idempotency_key, kind, account_id, environment, original_transaction_id,
                transaction_id, product_id, entitlement_ids, credits, effective_at, period_end, reason)
            VALUES (\(app.appID), \(kind + ":" + grant.grantID), \(kind), \(grant.account.rawValue),
                \(grant.environment.rawValue), \(grant.chainID), \(grant.grantID), \(product),
                \(PostgresArrayText.strings([grant.entitlementID]))::text[], NULL, \(timestamp(instant)),
                \(timestamp(grant.accessEndsAt)), \(entryReason))
            ON CONFLICT (app_id, environment, original_transaction_id, idempotency_key) DO NOTHING
            """)
        // The grant's row lock (taken by a revocation; a new grant's row is its own) serializes the writers of its
        // chain, as an apply's chain lock does.
        _ = try connection.query(
            LedgerChainRows.link(
                ChainKey(environment: grant.environment, chainID: grant.chainID), appID: app.appID,
                submissionID: nil, notificationID: nil))
    }

    private static func records(
        app: StoredApp, account: AccountID, grantID: String? = nil, idempotencyKey: String? = nil,
        forUpdate: Bool = false, on connection: PostgresConnection
    ) throws -> [EntitlementGrantRecord] {
        let lock: PostgresQuery = forUpdate ? "FOR UPDATE" : ""
        let rows = try connection.query(
            """
            SELECT grant_id::text, environment, entitlement_id, \(milliseconds("starts_at")),
                \(milliseconds("ends_at")), \(milliseconds("revoked_at")), reason, granted_by, revoked_by,
                idempotency_key
            FROM entitlement_grants
            WHERE app_id = \(app.appID) AND account_id = \(account.rawValue)
              AND (\(grantID)::uuid IS NULL OR grant_id = \(grantID)::uuid)
              AND (\(idempotencyKey)::text IS NULL OR idempotency_key = \(idempotencyKey))
            ORDER BY starts_at, grant_id
            \(lock)
            """)
        return try rows.map { row in
            EntitlementGrantRecord(
                grant: EntitlementGrant(
                    grantID: try row.decode(String.self, at: 0), account: account,
                    entitlementID: try row.decode(String.self, at: 2),
                    environment: try StoreEnvironment.stored(row.decode(String.self, at: 1)),
                    startsAt: Instant(millisecondsSince1970: try row.decode(Int64.self, at: 3)),
                    endsAt: Instant(millisecondsSince1970: try row.decode(Int64.self, at: 4)),
                    revokedAt: try row.decode(Int64?.self, at: 5).map(Instant.init(millisecondsSince1970:))),
                bundleID: app.definition.bundleID, reason: try row.decode(String.self, at: 6),
                grantedBy: try row.decode(String.self, at: 7), revokedBy: try row.decode(String?.self, at: 8),
                idempotencyKey: try row.decode(String?.self, at: 9))
        }
    }
}
