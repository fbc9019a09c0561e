import Crypto
import Foundation
import SubLedgerStore
import Synchronization

/// API keys: created once (the secret is shown only then), stored as SHA-256, listed, revoked, and checked
/// on every request through a short-lived cache that a revocation clears in every process (NOTIFY).
public final class APIKeys: Sendable {
    /// The NOTIFY channel that tells every process to drop its cached keys.
    static let channel = "subledger_keys"
    /// How long a looked-up key is trusted without asking the database again.
    static let cacheLifetime: Duration = .seconds(30)

    let store: APIKeyStore
    private let cache = Mutex<[[UInt8]: (key: AuthenticatedKey?, until: ContinuousClock.Instant)]>([:])
    private let invalidations = Atomic<Int>(0)

    /// API keys kept in `store`.
    public init(store: APIKeyStore) {
        self.store = store
    }

    /// A key as listed: never its secret.
    public typealias Listing = APIKeyStore.Listing

    /// Creates a key for the app `bundleID` (or an admin key when `nil`) and returns its id and secret.
    public func create(bundleID: String?, name: String) async throws -> (keyID: String, secret: String) {
        try await create(scope: bundleID == nil ? .admin : .app, bundleID: bundleID, name: name)
    }

    /// Creates a key of `scope` (an app key names its app's `bundleID`; the others name none) and returns its
    /// id and secret.
    public func create(scope keyScope: AuthenticatedKey.Scope, bundleID: String? = nil, name: String) async throws
        -> (keyID: String, secret: String)
    {
        guard (keyScope == .app) == (bundleID != nil) else { throw APIKeyError.appNamedWrongly }
        let trimmed = name.trimmingCharacters(in: .whitespacesAndNewlines)
        guard (1...200).contains(trimmed.count) else {
            throw APIKeyError.invalidKeyName
        }
        var random = SystemRandomNumberGenerator()
        let secretBytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &random) }
        let body = secretBytes.map { String(format: "%02x", $0) }.joined()
        let scope = keyScope.rawValue
        let secret = "sl_\(scope)_\(body)"
        let keyID = UUID().uuidString.lowercased()
        let inserted = try await store.insert(
            keyID: keyID, bundleID: bundleID, scope: scope, name: trimmed, prefix: String(secret.prefix(14)),
            secretSHA256: Self.hash(secret))
        guard inserted else {
            throw APIKeyError.unknownApp(bundleID: bundleID ?? "")
        }
        return (keyID, secret)
    }

    /// Every key, newest first.
    public func list() async throws -> [Listing] {
        try await store.list()
    }

    /// Revokes the key `keyID`; every process stops accepting it (NOTIFY clears their caches).
    public func revoke(keyID: String) async throws -> Bool {
        guard UUID(uuidString: keyID) != nil else { throw APIKeyError.invalidKeyID }
        return try await store.revoke(keyID: keyID, notifying: Self.channel)
    }

    /// The key presented as `secret`, or `nil` when it is unknown or revoked.
    package func authenticate(_ secret: String) async throws -> AuthenticatedKey? {
        let hash = Self.hash(secret)
        let cacheKey = hash
        let now = ContinuousClock.now
        if let cached = cache.withLock({ $0[cacheKey] }), cached.until > now { return cached.key }
        let key = try await store.activeKey(secretSHA256: hash).flatMap { active in
            // A scope this build does not know (a newer one's key) is refused rather than guessed at.
            AuthenticatedKey.Scope(rawValue: active.scope).map { scope in
                AuthenticatedKey(
                    keyID: active.keyID, scope: scope, name: active.name, appID: active.appID,
                    bundleID: active.bundleID)
            }
        }
        cache.withLock { entries in
            if entries.count > 10_000 { entries.removeAll() }
            entries[cacheKey] = (key, now.advanced(by: Self.cacheLifetime))
        }
        return key
    }

    /// The key presented as `secret` as the cache knows it now, without asking the database: `.some(nil)` for a
    /// secret known to be unknown or revoked, `nil` when the cache cannot say (not looked up within
    /// `cacheLifetime`; `authenticate` then asks).
    /// With the moment the cache stops trusting the answer (unless `invalidate` runs first: see `generation`).
    package func cachedKey(_ secret: String) -> (key: AuthenticatedKey?, until: ContinuousClock.Instant)? {
        let hash = Self.hash(secret)
        guard let cached = cache.withLock({ $0[hash] }), cached.until > ContinuousClock.now else { return nil }
        return cached
    }

    /// How many times the cache was dropped (`invalidate`): an answer of `cachedKey` taken before a change of
    /// this number is no longer to be trusted. Read it before asking.
    package var generation: Int { invalidations.load(ordering: .acquiring) }

    /// Drops every cached key (a key was revoked somewhere).
    func invalidate() {
        cache.withLock { $0.removeAll() }
        // After the clearing: a reader that saw the old number looked before it, or finds the cache empty.
        invalidations.add(1, ordering: .releasing)
    }

    static func hash(_ secret: String) -> [UInt8] {
        var hasher = SHA256()
        hasher.update(data: Array(secret.utf8))
        return Array(hasher.finalize())
    }
}
