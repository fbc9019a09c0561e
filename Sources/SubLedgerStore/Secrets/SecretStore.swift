import Logging
import PostgresLibPQ
import SubLedgerCore

/// Secrets at rest: what is stored how, whether this process can open it, and `secrets rotate-key` (the apps'
/// secrets, the webhook endpoints' secrets, and the shared secrets left in stored V1 notification bodies).
public struct SecretStore: Sendable {
    public let pool: PostgresPool
    /// The keys that seal and open the secrets; empty: none.
    public let secretKeys: SecretKeyring
    let logger: Logger

    public init(pool: PostgresPool, secretKeys: SecretKeyring, logger: Logger) {
        self.pool = pool
        self.secretKeys = secretKeys
        self.logger = logger
    }

    /// How the apps' secrets are stored.
    public struct Status: Sendable, Hashable {
        /// Sealed secrets by the id of the key that sealed them.
        public var sealedByKeyID: [String: Int]
        /// Secrets stored unsealed (written before secrets were sealed, or explicitly allowed).
        public var plaintext: Int
        /// Ids of keys that stored secrets need and this process does not have, sorted.
        public var missingKeyIDs: [String]
    }

    /// How the apps' secrets are stored now.
    public func status() async throws -> Status {
        let sealed = try await pool.query(
            """
            SELECT key_id, count(*) FROM (
                SELECT shared_secret_key_id AS key_id FROM apps WHERE shared_secret_sealed IS NOT NULL
                UNION ALL
                SELECT server_api_private_key_key_id FROM apps WHERE server_api_private_key_sealed IS NOT NULL
                UNION ALL
                SELECT key_id FROM app_store_secrets WHERE sealed IS NOT NULL
                UNION ALL
                \(WebhookEndpointSecrets.sealedKeyIDs)
            ) sealed GROUP BY key_id
            """ as PostgresQuery)
        var byKeyID: [String: Int] = [:]
        for row in sealed { byKeyID[try row.decode(String.self, at: 0)] = Int(try row.decode(Int64.self, at: 1)) }
        // The account erasure key is the installation's, not an app's: not counted, but its key must be configured.
        let erasureKeyID = try await pool.query("SELECT key_id FROM account_erasure_keys").first?.decode(
            String.self, at: 0)
        let plaintext =
            try await pool.query(
                """
                SELECT count(*) FILTER (WHERE shared_secret IS NOT NULL)
                    + count(*) FILTER (WHERE server_api_private_key IS NOT NULL)
                    + (SELECT count(*) FROM app_store_secrets WHERE plaintext IS NOT NULL)
                FROM apps
                """
            ).single().decode(Int64.self, at: 0)
            + (try await pool.query(WebhookEndpointSecrets.plaintextCount).single().decode(Int64.self, at: 0))
        return Status(
            sealedByKeyID: byKeyID, plaintext: Int(plaintext),
            missingKeyIDs: Set(byKeyID.keys).union(erasureKeyID.map { [$0] } ?? []).filter {
                secretKeys.key(id: $0) == nil
            }.sorted())
    }

    /// Refuses (`SecretError.keyUnavailable`) when a stored secret is sealed with a key this store does not
    /// have, so a service without its keys stops at start instead of failing on every request; warns when
    /// secrets are still stored in plaintext.
    @discardableResult
    public func checkKeys() async throws -> Status {
        let status = try await status()
        guard status.missingKeyIDs.isEmpty else {
            let configured = secretKeys.isEmpty ? "none" : secretKeys.keys.map(\.id).joined(separator: ", ")
            throw SecretError(
                .keyUnavailable,
                "stored secrets are sealed with secret key(s) \(status.missingKeyIDs.joined(separator: ", ")), which "
                    + "are not configured (configured: \(configured)); set SUBLEDGER_SECRET_KEY_FILE or "
                    + "SUBLEDGER_SECRET_KEY (docs/guides/operate.md, \"Secrets at rest\")")
        }
        if status.plaintext > 0 {
            logger.warning(
                "apps' secrets are stored unsealed: run `subledger secrets rotate-key` with a secret key configured",
                metadata: ["plaintext_secrets": "\(status.plaintext)"])
        }
        return status
    }

    /// What `reseal` did.
    public struct Resealing: Sendable, Hashable {
        /// The key everything is sealed with now.
        public var keyID: String
        /// Sealed secrets moved from an older key.
        public var resealed: Int
        /// Plaintext secrets sealed (and their plaintext columns emptied).
        public var sealedPlaintext: Int
        /// Whether the account erasure key was re-sealed from an older key.
        public var resealedErasureKey: Bool = false
    }

    /// Seals every app secret with the current key: re-seals those sealed with older keys and seals those
    /// stored in plaintext. One transaction: when any secret cannot be opened nothing changes, so no secret
    /// is ever lost half-way.
    public func reseal() async throws -> Resealing {
        guard let current = secretKeys.current else {
            throw SecretError(.noSecretKey, "no secret key is configured to seal with")
        }
        let keys = secretKeys
        return try await pool.transaction { connection in
            let rows = try connection.query(
                """
                SELECT app_id, bundle_id, shared_secret, shared_secret_sealed, shared_secret_key_id,
                    server_api_private_key, server_api_private_key_sealed, server_api_private_key_key_id
                FROM apps ORDER BY app_id FOR UPDATE
                """)
            var result = Resealing(keyID: current.id, resealed: 0, sealedPlaintext: 0)
            for row in rows {
                let appID = try row.decode(Int64.self, at: 0)
                let bundleID = try row.decode(String.self, at: 1)
                let fields: [(SecretPurpose.Field, Int, PostgresQuery)] = [
                    (.sharedSecret, 2, "shared_secret"), (.serverAPIPrivateKey, 5, "server_api_private_key"),
                ]
                for (field, index, column) in fields {
                    guard let stored = try StoredSecret(row, at: index) else { continue }
                    if stored.sealed?.keyID == current.id { continue }
                    let purpose = SecretPurpose(field, bundleID: bundleID)
                    let sealed = try keys.seal(try stored.open(for: purpose, with: keys), for: purpose)
                    try connection.query(
                        """
                        UPDATE apps SET \(column) = NULL, \(column)_sealed = \(sealed.combined),
                            \(column)_key_id = \(sealed.keyID)
                        WHERE app_id = \(appID)
                        """ as PostgresQuery)
                    if stored.plaintext != nil { result.sealedPlaintext += 1 } else { result.resealed += 1 }
                }
            }
            let stores = try Self.resealStoreSecrets(on: connection, with: keys)
            result.resealed += stores.resealed
            result.sealedPlaintext += stores.sealed
            result.resealedErasureKey = try Self.resealErasureKey(on: connection, with: keys)
            let webhooks = try WebhookEndpointSecrets.reseal(on: connection, with: keys)
            result.resealed += webhooks.resealed
            result.sealedPlaintext += webhooks.sealed
            if result.resealed + result.sealedPlaintext > 0 {
                try connection.query("SELECT pg_notify('subledger_catalog', '')")
            }
            return result
        }
    }

    /// Seals every store secret (`app_store_secrets`) with the current key: those sealed with an older key, and those
    /// stored in plaintext. Rows are locked in key order with the apps' (the caller holds them).
    static func resealStoreSecrets(
        on connection: PostgresConnection, with keys: SecretKeyring
    ) throws -> (resealed: Int, sealed: Int) {
        guard let current = keys.current else { return (0, 0) }
        let rows = try connection.query(
            """
            SELECT s.app_id, a.bundle_id, s.store, s.name, s.plaintext, s.sealed, s.key_id
            FROM app_store_secrets s JOIN apps a ON a.app_id = s.app_id
            WHERE s.sealed IS NULL OR s.key_id <> \(current.id)
            ORDER BY s.app_id, s.store, s.name FOR UPDATE OF s
            """)
        var result = (resealed: 0, sealed: 0)
        for row in rows {
            let appID = try row.decode(Int64.self, at: 0)
            let storeName = try row.decode(String.self, at: 2)
            let name = try row.decode(String.self, at: 3)
            guard let store = Store(rawValue: storeName), let stored = try StoredSecret(row, at: 4) else {
                throw StoreError(
                    code: .corruptRow,
                    message: "the \(storeName) secret \(name) of app \(appID) names a store this build does not know; "
                        + "nothing was re-sealed")
            }
            let purpose = SecretPurpose(.storeSecret(store, name), bundleID: try row.decode(String.self, at: 1))
            let sealed = try keys.seal(try stored.open(for: purpose, with: keys), for: purpose)
            try connection.query(
                """
                UPDATE app_store_secrets SET plaintext = NULL, sealed = \(sealed.combined), key_id = \(sealed.keyID),
                    updated_at = now()
                WHERE app_id = \(appID) AND store = \(storeName) AND name = \(name)
                """)
            if stored.plaintext != nil { result.sealed += 1 } else { result.resealed += 1 }
        }
        return result
    }

    /// Re-seals the account erasure key with the current key when an older one sealed it.
    static func resealErasureKey(on connection: PostgresConnection, with keys: SecretKeyring) throws -> Bool {
        guard let current = keys.current,
            let row = try connection.query(
                "SELECT key_sealed, key_id FROM account_erasure_keys FOR UPDATE" as PostgresQuery
            ).first
        else { return false }
        let sealed = SealedSecret(
            keyID: try row.decode(String.self, at: 1), combined: try row.decode([UInt8].self, at: 0))
        guard sealed.keyID != current.id else { return false }
        let resealed = try keys.seal(try keys.open(sealed, for: .accountErasureKey), for: .accountErasureKey)
        try connection.query(
            "UPDATE account_erasure_keys SET key_sealed = \(resealed.combined), key_id = \(resealed.keyID)"
                as PostgresQuery)
        return true
    }

    /// How many stored V1 notification bodies `redact` would change (bodies that still carry the shared
    /// secret Apple echoes in `password`, stored before bodies were redacted).
    public func countUnredactedV1Notifications(redact: (String) -> String) async throws -> Int {
        try await scanV1Notifications(redact: redact, rewrite: false)
    }

    /// Rewrites every stored V1 notification body that `redact` changes, in batches; returns how many. Each
    /// rewrite is recorded in `notification_redactions` and linked into every chain that links the notification,
    /// so `ledger verify` still finds the chain intact.
    public func redactStoredV1Notifications(redact: (String) -> String) async throws -> Int {
        try await scanV1Notifications(redact: redact, rewrite: true)
    }

    private func scanV1Notifications(redact: (String) -> String, rewrite: Bool) async throws -> Int {
        var after: Int64 = 0
        var changed = 0
        while true {
            let rows = try await pool.query(
                """
                SELECT notification_row_id, body FROM notifications
                WHERE version = 'v1' AND notification_row_id > \(after)
                ORDER BY notification_row_id LIMIT 500
                """ as PostgresQuery)
            if rows.isEmpty { return changed }
            var updates: [(id: Int64, old: String, new: String)] = []
            for row in rows {
                let id = try row.decode(Int64.self, at: 0)
                let body = try row.decode(String.self, at: 1)
                after = id
                let redacted = redact(body)
                if redacted != body { updates.append((id, body, redacted)) }
            }
            changed += updates.count
            guard rewrite, !updates.isEmpty else { continue }
            let batch = updates
            try await pool.transaction { connection in
                for update in batch {
                    // Rewrites the body and links the redaction into the body's chains (migrations/0026).
                    try connection.query(
                        "SELECT notification_redact(\(update.id), \(update.old), \(update.new))" as PostgresQuery)
                }
            }
        }
    }
}
