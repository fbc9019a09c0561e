import Foundation
import PostgresLibPQ
import SubLedgerCore

/// What an erasure replaced or removed (docs/guides/accounts.md, "Erasing an account").
public struct AccountErasure: Sendable, Hashable {
    /// The random name the account's rows carry from now on (`erased-<uuid>`), never derived from the id.
    public var pseudonym: String
    /// Rows rewritten or removed, by what they are (`ledger_entries`, `receipts`, `notifications`, `chains`,
    /// `transactions`, `orders`, `app_account_tokens`, `grants`, `webhook_events`).
    public var counts: [String: Int64]
    /// The ids merged into the account, erased with it (each under a pseudonym of its own).
    public var aliases: Int64
}

extension AccountErasureStore {
    /// The body an erased account's raw inputs (submissions, and the notifications of the chains it owned) are
    /// replaced by: `account_erase`'s `jsonb_build_object('erased', true)::text` (schema step 55).
    public static let redactedBody = #"{"erased": true}"#
}

/// Why the store refused an erasure.
public enum AccountErasureConflict: Error, Sendable, Hashable {
    /// The account was erased before.
    case erased
    /// No row of the app names the account.
    case unknown
    /// No secret key is configured to seal the account erasure key with (or to open it).
    case secretKeyRequired
}

/// Account erasures, each in one transaction under the account's exclusive lock (the lock a submission of the
/// account takes shared, and a merge exclusively), so a submission racing the erasure applies before it (and is
/// erased with the rest) or is refused after it. The work is `account_erase` (schema steps 47 and 48); the
/// `account.erased` event is queued in the same transaction. Erased ids are known by a keyed digest
/// (`AccountErasureKeys`), so an erasure needs a secret key.
public struct AccountErasureStore: Sendable {
    public let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// Erases `account` of `app`, by `actor`, at `now`.
    public func erase(_ account: AccountID, app: StoredApp, actor: String, now: Instant) async throws
        -> AccountErasure
    {
        try await pool.transaction { connection in
            _ = try connection.query(AccountAliasRows.lock(account, appID: app.appID, exclusive: true))
            guard let key = try app.erasureKeys.key(on: connection) else {
                throw AccountErasureConflict.secretKeyRequired
            }
            // The ids merged into the account, read under its exclusive lock (a merge into it takes that lock too):
            // each is erased with it, under a keyed digest of its own.
            let aliases = try connection.query(
                """
                SELECT account_id FROM account_aliases WHERE app_id = \(app.appID) AND merged_into = \(account.rawValue)
                ORDER BY account_id
                """
            ).map { try storedAccount($0.decode(String.self, at: 0)) }
            let ids = [account] + aliases
            let digests = ids.map {
                AccountErasureKeys.keyedDigest(key, appID: app.appID, account: $0).map { String(format: "%02x", $0) }
                    .joined()
            }
            let row = try connection.query(
                """
                SELECT account_erase(
                    \(app.appID), \(PostgresArrayText.strings(ids.map(\.rawValue)))::text::text[],
                    ARRAY(SELECT decode(d, 'hex') FROM unnest(\(PostgresArrayText.strings(digests))::text::text[])
                          WITH ORDINALITY AS u(d, i) ORDER BY i),
                    \(AccountErasureKeys.plainDigest(appID: app.appID, account: account)), \(actor),
                    \(timestamp(now))::timestamptz)::text
                """
            ).first
            guard let text = try row?.decode(String?.self, at: 0) else { throw AccountErasureConflict.erased }
            let summary = try StoreJSON.decode(Summary.self, from: text, what: "erasure summary")
            guard let pseudonym = summary.pseudonym else { throw AccountErasureConflict.unknown }
            let erased = try storedAccount(pseudonym)
            let environments = summary.environments.compactMap(StoreEnvironment.init(rawValue:))
            let drafts = (environments.isEmpty ? [.production] : environments).map { environment in
                WebhookEventDraft(
                    type: .accountErased, environment: environment, account: erased, occurredAt: now,
                    subject: "erasure|\(summary.erasure_id ?? 0)",
                    data: [.init("pseudonym", .string(pseudonym)), .init("erased_at", .time(now))])
            }
            try WebhookOutbox.write(
                drafts, cause: WebhookEventCause(kind: .admin, id: "erasure"), moments: [], app: app, now: now,
                on: connection)
            return AccountErasure(
                pseudonym: pseudonym,
                counts: [
                    "ledger_entries": summary.ledger_entries, "receipts": summary.receipts,
                    "notifications": summary.notifications, "chains": summary.chains,
                    "transactions": summary.transactions, "orders": summary.orders,
                    "app_account_tokens": summary.app_account_tokens, "grants": summary.grants,
                    "webhook_events": summary.webhook_events,
                ].compactMapValues { $0 },
                aliases: summary.aliases ?? 0)
        }
    }

    /// Whether `account` of `app` was erased (by its digests: the id itself is stored nowhere).
    public func isErased(_ account: AccountID, app: StoredApp) async throws -> Bool {
        try await pool.withConnection { connection in
            try Self.isErased(account, app: app, on: connection)
        }
    }

    static func isErased(_ account: AccountID, app: StoredApp, on connection: PostgresConnection) throws -> Bool {
        let digests = try app.erasureKeys.digests(of: account, appID: app.appID, on: connection)
        return try !connection.query(erased(digests, appID: app.appID)).isEmpty
    }

    /// A row when the account with `digests` of the app was erased, none otherwise: by its keyed digest, or by the
    /// plain one of an erasure of schema step 47.
    static func erased(_ digests: AccountErasureDigests, appID: Int64) -> PostgresQuery {
        """
        SELECT 1 FROM erased_accounts
        WHERE app_id = \(appID) AND (account_digest = \(digests.keyed) AND digest_scheme = 'hmac-sha256'
            OR account_digest = \(digests.plain) AND digest_scheme = 'sha256')
        """
    }

    /// `account_erase`'s answer.
    private struct Summary: Decodable {
        var erasure_id: Int64?
        var pseudonym: String?
        var aliases: Int64?
        var environments: [String] = []
        var ledger_entries: Int64?
        var receipts: Int64?
        var notifications: Int64?
        var chains: Int64?
        var transactions: Int64?
        var orders: Int64?
        var app_account_tokens: Int64?
        var grants: Int64?
        var webhook_events: Int64?

        enum CodingKeys: String, CodingKey {
            case erasure_id, pseudonym, aliases, environments, ledger_entries, receipts, notifications, chains,
                transactions, orders, app_account_tokens, grants, webhook_events
        }

        init(from decoder: any Decoder) throws {
            let c = try decoder.container(keyedBy: CodingKeys.self)
            erasure_id = try c.decodeIfPresent(Int64.self, forKey: .erasure_id)
            pseudonym = try c.decodeIfPresent(String.self, forKey: .pseudonym)
            aliases = try c.decodeIfPresent(Int64.self, forKey: .aliases)
            environments = try c.decodeIfPresent([String].self, forKey: .environments) ?? []
            ledger_entries = try c.decodeIfPresent(Int64.self, forKey: .ledger_entries)
            receipts = try c.decodeIfPresent(Int64.self, forKey: .receipts)
            notifications = try c.decodeIfPresent(Int64.self, forKey: .notifications)
            chains = try c.decodeIfPresent(Int64.self, forKey: .chains)
            transactions = try c.decodeIfPresent(Int64.self, forKey: .transactions)
            orders = try c.decodeIfPresent(Int64.self, forKey: .orders)
            app_account_tokens = try c.decodeIfPresent(Int64.self, forKey: .app_account_tokens)
            grants = try c.decodeIfPresent(Int64.self, forKey: .grants)
            webhook_events = try c.decodeIfPresent(Int64.self, forKey: .webhook_events)
        }
    }
}
