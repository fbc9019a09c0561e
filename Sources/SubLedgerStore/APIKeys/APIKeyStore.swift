import PostgresLibPQ

/// The `api_keys` table: keys stored as the SHA-256 of their secret, inserted, listed, revoked (with a NOTIFY
/// so every process drops its cached keys) and looked up by that digest.
public struct APIKeyStore: Sendable {
    public let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// A key as listed: never its secret.
    public struct Listing: Sendable, Hashable, Codable {
        public var keyID: String
        public var scope: String
        public var bundleID: String?
        public var name: String
        public var prefix: String
        public var createdAt: String
        public var revokedAt: String?
    }

    /// A key that is not revoked, found by the digest of its secret.
    public struct ActiveKey: Sendable, Hashable {
        public var keyID: String
        /// `app`, `admin`, `support` or `reports`.
        public var scope: String
        /// The name given when the key was created: who acts with it (the audit log and grants record it).
        public var name: String
        public var appID: Int64?
        public var bundleID: String?
    }

    /// Stores a new key for the app `bundleID` (`nil` for an admin key); `false`, storing nothing, when no
    /// app has that bundle id.
    public func insert(
        keyID: String, bundleID: String?, scope: String, name: String, prefix: String, secretSHA256: [UInt8]
    ) async throws -> Bool {
        // The app first, then a plain INSERT: Citus plans no INSERT … SELECT without a FROM into a reference table.
        var appID: Int64?
        if let bundleID {
            let apps = try await pool.query("SELECT app_id FROM apps WHERE bundle_id = \(bundleID)")
            guard let app = apps.first else { return false }
            appID = try app.decode(Int64.self, at: 0)
        }
        let rows = try await pool.query(
            """
            INSERT INTO api_keys (key_id, app_id, scope, name, prefix, key_sha256)
            VALUES (\(keyID)::uuid, \(appID), \(scope), \(name), \(prefix), \(secretSHA256))
            RETURNING key_id::text
            """)
        return rows.count == 1
    }

    /// Every key, newest first.
    public func list() async throws -> [Listing] {
        try await pool.query(
            """
            SELECT k.key_id::text, k.scope, a.bundle_id, k.name, k.prefix, k.created_at::text, k.revoked_at::text
            FROM api_keys k LEFT JOIN apps a USING (app_id) ORDER BY k.created_at DESC
            """
        ).map { row in
            Listing(
                keyID: try row.decode(String.self, at: 0), scope: try row.decode(String.self, at: 1),
                bundleID: try row.decode(String?.self, at: 2), name: try row.decode(String.self, at: 3),
                prefix: try row.decode(String.self, at: 4), createdAt: try row.decode(String.self, at: 5),
                revokedAt: try row.decode(String?.self, at: 6))
        }
    }

    /// Revokes the active key `keyID` (a UUID) and, in the same transaction, notifies `channel` with its id;
    /// `false` when no active key has that id.
    public func revoke(keyID: String, notifying channel: String) async throws -> Bool {
        try await pool.transaction { connection in
            let rows = try connection.query(
                "UPDATE api_keys SET revoked_at = now() WHERE key_id = \(keyID)::uuid AND revoked_at IS NULL")
            try connection.query("SELECT pg_notify(\(channel), \(keyID))")
            return rows.rowsAffected == 1
        }
    }

    /// The active key whose secret has the digest `secretSHA256`, or `nil` when none (unknown or revoked).
    public func activeKey(secretSHA256: [UInt8]) async throws -> ActiveKey? {
        let rows = try await pool.query(
            """
            SELECT k.key_id::text, k.scope, k.app_id, a.bundle_id, k.name
            FROM api_keys k LEFT JOIN apps a USING (app_id)
            WHERE k.key_sha256 = \(secretSHA256) AND k.revoked_at IS NULL
            """)
        return try rows.first.map { row in
            ActiveKey(
                keyID: try row.decode(String.self, at: 0), scope: try row.decode(String.self, at: 1),
                name: try row.decode(String.self, at: 4), appID: try row.decode(Int64?.self, at: 2),
                bundleID: try row.decode(String?.self, at: 3))
        }
    }
}
