import Crypto
import Foundation
import PostgresLibPQ
import Synchronization

/// API keys: created once (the secret is shown only then), stored as SHA-256, listed, revoked, and checked
/// on every request through a short-lived cache that a revocation clears in every process (NOTIFY).
public final class APIKeys: Sendable {
    /// The NOTIFY channel that tells every process to drop its cached keys.
    static let channel = "subledger_keys"
    /// How long a looked-up key is trusted without asking the database again.
    static let cacheLifetime: Duration = .seconds(30)

    let pool: PostgresPool
    private let cache = Mutex<[[UInt8]: (key: AuthenticatedKey?, until: ContinuousClock.Instant)]>([:])

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

    /// Creates a key for the app `bundleID` (or an admin key when `nil`) and returns its id and secret.
    public func create(bundleID: String?, name: String) async throws -> (keyID: String, secret: String) {
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...200).contains(trimmed.count) else {
            throw APIError.badRequest("invalid_key_name", "a key name has 1 to 200 characters")
        }
        var random = SystemRandomNumberGenerator()
        let secretBytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &random) }
        let body = secretBytes.map { String(format: "%02x", $0) }.joined()
        let scope = bundleID == nil ? "admin" : "app"
        let secret = "sl_\(scope)_\(body)"
        let prefix = String(secret.prefix(14))
        let keyID = UUID().uuidString.lowercased()
        let hash = Self.hash(secret)
        let rows = try await pool.query(
            """
            INSERT INTO api_keys (key_id, app_id, scope, name, prefix, key_sha256)
            SELECT $1::uuid, (SELECT app_id FROM apps WHERE bundle_id = $2), $3, $4, $5, $6
            WHERE $2::text IS NULL OR EXISTS (SELECT 1 FROM apps WHERE bundle_id = $2)
            RETURNING key_id::text
            """, [keyID, bundleID, scope, trimmed, prefix, hash])
        guard rows.count == 1 else {
            throw APIError.notFound("unknown_app", "no app with bundle id '\(bundleID ?? "")'; run `subledger catalog apply` first")
        }
        return (keyID, secret)
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

    /// Revokes the key `keyID`; every process stops accepting it (NOTIFY clears their caches).
    public func revoke(keyID: String) async throws -> Bool {
        guard UUID(uuidString: keyID) != nil else { throw APIError.badRequest("invalid_key_id", "a key id is a UUID") }
        return try await pool.transaction { connection in
            let rows = try connection.query(
                "UPDATE api_keys SET revoked_at = now() WHERE key_id = $1::uuid AND revoked_at IS NULL", [keyID])
            try connection.query("SELECT pg_notify($1, $2)", [Self.channel, keyID])
            return rows.rowsAffected == 1
        }
    }

    /// The key presented as `secret`, or `nil` when it is unknown or revoked.
    func authenticate(_ secret: String) async throws -> AuthenticatedKey? {
        let hash = Self.hash(secret)
        let cacheKey = hash
        let now = ContinuousClock.now
        if let cached = cache.withLock({ $0[cacheKey] }), cached.until > now { return cached.key }
        let rows = try await pool.query(
            """
            SELECT k.key_id::text, k.scope, k.app_id, a.bundle_id FROM api_keys k LEFT JOIN apps a USING (app_id)
            WHERE k.key_sha256 = $1 AND k.revoked_at IS NULL
            """, [hash])
        let key = try rows.first.map { row in
            AuthenticatedKey(
                keyID: try row.decode(String.self, at: 0),
                scope: try row.decode(String.self, at: 1) == "admin" ? .admin : .app,
                appID: try row.decode(Int64?.self, at: 2),
                bundleID: try row.decode(String?.self, at: 3))
        }
        cache.withLock { entries in
            if entries.count > 10_000 { entries.removeAll() }
            entries[cacheKey] = (key, now.advanced(by: Self.cacheLifetime))
        }
        return key
    }

    /// Drops every cached key (a key was revoked somewhere).
    func invalidate() {
        cache.withLock { $0.removeAll() }
    }

    static func hash(_ secret: String) -> [UInt8] {
        Array(SHA256.hash(data: Data(secret.utf8)))
    }
}
