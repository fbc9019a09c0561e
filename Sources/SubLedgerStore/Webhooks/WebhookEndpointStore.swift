import Foundation
import PostgresLibPQ
import SubLedgerCore

/// The `webhook_endpoints` table and what operators do to it: add, list, rotate the secret, pause, resume,
/// remove. Secrets are sealed with the current secret key when one is configured, like the apps' secrets,
/// and stored in plaintext otherwise. Deliveries, test events and replays are in `WebhookEndpointStore+Deliveries`.
///
/// It checks nothing about the values it is given (URL rules, event type names, lengths): the service's
/// `WebhookAdmin` does, before it calls here.
public struct WebhookEndpointStore: Sendable {
    public let pool: PostgresPool
    public let secretKeys: SecretKeyring

    public init(pool: PostgresPool, secretKeys: SecretKeyring) {
        self.pool = pool
        self.secretKeys = secretKeys
    }

    /// What a new endpoint is.
    public struct NewEndpoint: Sendable, Hashable {
        public var bundleID: String
        public var url: String
        public var description: String?
        public var eventTypes: [String]
        public var environments: [String]
        public var allowPrivateNetwork: Bool

        public init(
            bundleID: String, url: String, description: String?, eventTypes: [String], environments: [String],
            allowPrivateNetwork: Bool
        ) {
            self.bundleID = bundleID
            self.url = url
            self.description = description
            self.eventTypes = eventTypes
            self.environments = environments
            self.allowPrivateNetwork = allowPrivateNetwork
        }
    }

    /// Stores a new endpoint with the signing secret `secret`; `nil`, storing nothing, when no app has the
    /// bundle id.
    public func add(_ new: NewEndpoint, endpointID: UUID, secret: String) async throws -> WebhookEndpoint? {
        let id = endpointID.uuidString.lowercased()
        let stored = try seal(secret, endpointID: id, bundleID: new.bundleID)
        let inserted = try await pool.query(
            """
            INSERT INTO webhook_endpoints (endpoint_id, app_id, url, description, event_types, environments,
                allow_private_network, secret, secret_sealed, secret_key_id)
            SELECT \(id)::uuid, a.app_id, \(new.url), \(new.description),
                \(PostgresArrayText.strings(new.eventTypes))::text[],
                \(PostgresArrayText.strings(new.environments))::text[],
                \(new.allowPrivateNetwork), \(stored.plaintext), \(stored.sealed?.combined), \(stored.sealed?.keyID)
            FROM apps a WHERE a.bundle_id = \(new.bundleID)
            """ as PostgresQuery)
        guard inserted.rowsAffected == 1 else { return nil }
        return try await endpoint(id: id)
    }

    /// The endpoints of the app `bundleID` (every app's when `nil`), oldest first; removed ones only when asked.
    public func list(bundleID: String?, includingRemoved: Bool = false) async throws -> [WebhookEndpoint] {
        try await pool.query(
            """
            \(Self.selectEndpoints)
            WHERE (\(bundleID)::text IS NULL OR a.bundle_id = \(bundleID)) AND (\(includingRemoved) OR e.state <> 'removed')
            ORDER BY e.created_at, e.endpoint_id
            """ as PostgresQuery
        ).map(Self.endpoint(from:))
    }

    /// The endpoint `id` (a UUID in text), removed or not; `nil` when there is none.
    public func endpoint(id: String) async throws -> WebhookEndpoint? {
        try await pool.query("\(Self.selectEndpoints) WHERE e.endpoint_id = \(id)::uuid" as PostgresQuery)
            .map(Self.endpoint(from:)).first
    }

    /// Makes `newSecret` the endpoint's secret. The one it replaces keeps signing until `previousValidUntil`
    /// (requests carry both signatures meanwhile); with `nil` it stops at once. `false` when there is no
    /// such endpoint that is not removed.
    public func rotateSecret(endpointID id: String, newSecret: String, previousValidUntil: Instant?) async throws
        -> Bool
    {
        let found = try await pool.query(
            """
            SELECT a.bundle_id FROM webhook_endpoints e JOIN apps a USING (app_id)
            WHERE e.endpoint_id = \(id)::uuid AND e.state <> 'removed'
            """ as PostgresQuery)
        guard let bundleID = try found.first?.decode(String.self, at: 0) else { return false }
        let stored = try seal(newSecret, endpointID: id, bundleID: bundleID)
        // The sealed columns move as they are: current and previous share one purpose (the endpoint), so a
        // sealed secret opens in either column. Right-hand sides read the row as it was before the update.
        let updated = try await pool.query(
            """
            UPDATE webhook_endpoints SET
                previous_secret = CASE WHEN \(timestamp(previousValidUntil))::timestamptz IS NULL THEN NULL ELSE secret END,
                previous_secret_sealed = CASE WHEN \(timestamp(previousValidUntil))::timestamptz IS NULL THEN NULL ELSE secret_sealed END,
                previous_secret_key_id = CASE WHEN \(timestamp(previousValidUntil))::timestamptz IS NULL THEN NULL ELSE secret_key_id END,
                previous_secret_expires_at = \(timestamp(previousValidUntil))::timestamptz,
                secret = \(stored.plaintext), secret_sealed = \(stored.sealed?.combined),
                secret_key_id = \(stored.sealed?.keyID), updated_at = now()
            WHERE endpoint_id = \(id)::uuid AND state <> 'removed'
            """ as PostgresQuery)
        return updated.rowsAffected == 1
    }

    /// The secrets that sign the endpoint's requests at `now`: the current one, then the previous one while
    /// it is still valid. `nil` when there is no such endpoint.
    public func signingSecrets(endpointID id: String, now: Instant) async throws -> [String]? {
        let rows = try await pool.query(
            """
            SELECT a.bundle_id, e.secret, e.secret_sealed, e.secret_key_id,
                e.previous_secret, e.previous_secret_sealed, e.previous_secret_key_id,
                e.previous_secret_expires_at > \(timestamp(now))::timestamptz
            FROM webhook_endpoints e JOIN apps a USING (app_id) WHERE e.endpoint_id = \(id)::uuid
            """ as PostgresQuery)
        guard let row = rows.first else { return nil }
        let purpose = SecretPurpose.webhookSecret(endpointID: id, bundleID: try row.decode(String.self, at: 0))
        guard let current = try StoredSecret(row, at: 1) else {
            throw StoreError(code: .corruptRow, message: "webhook endpoint \(id) has no secret")
        }
        var secrets = [try current.open(for: purpose, with: secretKeys)]
        if try row.decode(Bool?.self, at: 7) == true, let previous = try StoredSecret(row, at: 4) {
            secrets.append(try previous.open(for: purpose, with: secretKeys))
        }
        return secrets
    }

    /// Pauses the endpoint by hand: its deliveries wait (new events still queue for it). `false` when there
    /// is no such endpoint that is not removed.
    public func pause(endpointID id: String) async throws -> Bool {
        try await pool.query(
            """
            UPDATE webhook_endpoints SET state = 'paused', paused_reason = 'manual',
                paused_at = coalesce(paused_at, now()), updated_at = now()
            WHERE endpoint_id = \(id)::uuid AND state <> 'removed'
            """ as PostgresQuery
        ).rowsAffected == 1
    }

    /// Resumes a paused (or failing) endpoint: clears the reason and the failure count, makes its waiting
    /// deliveries due now and wakes the deliverers, so the backlog goes out. `false` when there is no such
    /// endpoint that is not removed.
    public func resume(endpointID id: String) async throws -> Bool {
        try await pool.transaction { connection in
            let updated = try connection.query(
                """
                UPDATE webhook_endpoints SET state = 'active', paused_reason = NULL, paused_at = NULL,
                    consecutive_failures = 0, updated_at = now()
                WHERE endpoint_id = \(id)::uuid AND state <> 'removed'
                """ as PostgresQuery)
            guard updated.rowsAffected == 1 else { return false }
            // Deliveries held by a live lease are left to their deliverer, which sets their next attempt itself.
            try connection.query(
                """
                UPDATE webhook_deliveries SET next_attempt_at = now()
                WHERE endpoint_id = \(id)::uuid AND state = 'pending' AND next_attempt_at > now()
                  AND (leased_until IS NULL OR leased_until < now())
                """ as PostgresQuery)
            try connection.query("SELECT pg_notify('subledger_webhooks', '')")
            return true
        }
    }

    /// Removes the endpoint: no new deliveries are made for it and its waiting ones are marked failed; the
    /// row and its delivery history stay. `false` when there is no such endpoint that is not removed.
    public func remove(endpointID id: String) async throws -> Bool {
        try await pool.transaction { connection in
            let updated = try connection.query(
                """
                UPDATE webhook_endpoints SET state = 'removed', paused_reason = NULL, paused_at = NULL,
                    removed_at = now(), updated_at = now()
                WHERE endpoint_id = \(id)::uuid AND state <> 'removed'
                """ as PostgresQuery)
            guard updated.rowsAffected == 1 else { return false }
            try connection.query(
                """
                UPDATE webhook_deliveries SET state = 'failed', last_error = 'the endpoint was removed',
                    leased_until = NULL, leased_by = NULL
                WHERE endpoint_id = \(id)::uuid AND state = 'pending'
                """ as PostgresQuery)
            return true
        }
    }

    // MARK: - Internals

    /// The columns `endpoint(from:)` reads, over `webhook_endpoints e JOIN apps a`.
    static let selectEndpoints: PostgresQuery = """
        SELECT e.endpoint_id::text, a.bundle_id, e.url, e.description, array_to_json(e.event_types)::text,
            array_to_json(e.environments)::text, e.allow_private_network, e.state, e.paused_reason,
            e.consecutive_failures, \(utc("e.previous_secret_expires_at")), e.secret_key_id,
            (SELECT count(*) FROM webhook_deliveries d WHERE d.endpoint_id = e.endpoint_id AND d.state = 'pending'),
            (SELECT count(*) FROM webhook_deliveries d WHERE d.endpoint_id = e.endpoint_id AND d.state = 'failed'),
            \(utc("e.created_at")), \(utc("e.removed_at"))
        FROM webhook_endpoints e JOIN apps a USING (app_id)
        """

    static func endpoint(from row: PostgresRow) throws -> WebhookEndpoint {
        WebhookEndpoint(
            endpointID: try row.decode(String.self, at: 0), bundleID: try row.decode(String.self, at: 1),
            url: try row.decode(String.self, at: 2), description: try row.decode(String?.self, at: 3),
            eventTypes: try stringArray(try row.decode(String.self, at: 4)),
            environments: try stringArray(try row.decode(String.self, at: 5)),
            allowPrivateNetwork: try row.decode(Bool.self, at: 6), state: try row.decode(String.self, at: 7),
            pausedReason: try row.decode(String?.self, at: 8),
            consecutiveFailures: Int(try row.decode(Int32.self, at: 9)),
            previousSecretExpiresAt: try row.decode(String?.self, at: 10),
            secretKeyID: try row.decode(String?.self, at: 11),
            pendingDeliveries: Int(try row.decode(Int64.self, at: 12)),
            failedDeliveries: Int(try row.decode(Int64.self, at: 13)),
            createdAt: try row.decode(String.self, at: 14), removedAt: try row.decode(String?.self, at: 15))
    }

    /// SQL that renders the timestamptz `column` as RFC 3339 UTC with milliseconds (NULL stays NULL).
    static func utc(_ column: PostgresQuery) -> PostgresQuery {
        "to_char(\(column) AT TIME ZONE 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')"
    }

    /// A list of strings as a JSON array, the form `jsonb_array_elements_text` takes.
    static func jsonArray(_ values: [String]) throws -> String {
        String(decoding: try JSONEncoder().encode(values), as: UTF8.self)
    }

    static func stringArray(_ json: String) throws -> [String] {
        do {
            return try JSONDecoder().decode([String].self, from: Data(json.utf8))
        } catch {
            throw StoreError(code: .corruptRow, message: "a webhook endpoint's list column does not decode")
        }
    }

    /// `secret` as it is stored: sealed for the endpoint when a key is configured, plaintext otherwise.
    func seal(_ secret: String, endpointID: String, bundleID: String) throws -> StoredSecret {
        guard !secretKeys.isEmpty else { return .plaintext(secret) }
        return .sealed(
            try secretKeys.seal(secret, for: .webhookSecret(endpointID: endpointID, bundleID: bundleID)))
    }
}
