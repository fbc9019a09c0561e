import Crypto
import Foundation
import PostgresLibPQ
import SubLedgerCore
import Synchronization

/// The digests an erased account id is recognised by (docs/guides/accounts.md, "Erasing an account"): the id itself
/// is stored nowhere after its erasure.
public struct AccountErasureDigests: Sendable, Hashable {
    /// HMAC-SHA256 under the installation's account erasure key; `nil` in a process without secret keys, which can
    /// neither open that key nor erase.
    public var keyed: [UInt8]?
    /// The unkeyed SHA-256 schema step 47 recorded (rows with `digest_scheme` 'sha256'), which its erasures are still
    /// known by: their ids are gone, so their digests cannot be re-keyed.
    public var plain: [UInt8]
}

/// The installation's account erasure key, which erased ids are digested with: 32 random bytes created on first need,
/// stored in `account_erasure_keys` sealed with the secret keys (like the apps' secrets, and re-sealed with them by
/// `secrets rotate-key`), held in memory once read. Without it, whoever holds the database could confirm a guessed
/// account id (an email, a small number) by hashing it.
///
/// A reference shared by the apps one `CatalogStore` reads, so that the key is read once per process.
public final class AccountErasureKeys: Sendable, Hashable, CustomStringConvertible {
    let secretKeys: SecretKeyring
    /// Only a key read back as committed: one created in a transaction that may still roll back is not kept.
    private let cached = Mutex<SymmetricKey?>(nil)

    public init(secretKeys: SecretKeyring) {
        self.secretKeys = secretKeys
    }

    /// What the sealed key is for (the AES-GCM associated data).
    static let purpose = SecretPurpose.accountErasureKey

    /// The text both digests are taken of.
    static func message(appID: Int64, account: AccountID) -> Data {
        Data("subledger-account-erasure|\(appID)|\(account.rawValue)".utf8)
    }

    /// The plain digest of step 47: SHA-256 of the message.
    static func plainDigest(appID: Int64, account: AccountID) -> [UInt8] {
        Array(SHA256.hash(data: message(appID: appID, account: account)))
    }

    static func keyedDigest(_ key: SymmetricKey, appID: Int64, account: AccountID) -> [UInt8] {
        Array(HMAC<SHA256>.authenticationCode(for: message(appID: appID, account: account), using: key))
    }

    /// The digests of `account` of app `appID`; reads (or creates, in the caller's transaction) the key on
    /// `connection` while this process holds none.
    func digests(of account: AccountID, appID: Int64, on connection: PostgresConnection) throws
        -> AccountErasureDigests
    {
        AccountErasureDigests(
            keyed: try key(on: connection).map { Self.keyedDigest($0, appID: appID, account: account) },
            plain: Self.plainDigest(appID: appID, account: account))
    }

    /// The key: from memory, else read from `connection` and opened, else created (random), sealed and inserted in
    /// the caller's transaction. `nil` when no secret key is configured: such a process cannot seal or open it (and
    /// `SecretStore.checkKeys` stops one at start once a key is stored).
    func key(on connection: PostgresConnection) throws -> SymmetricKey? {
        if let key = cached.withLock({ $0 }) { return key }
        guard !secretKeys.isEmpty else { return nil }
        if let stored = try read(on: connection) {
            cached.withLock { $0 = stored }
            return stored
        }
        let created = SymmetricKey(size: .bits256)
        let sealed = try secretKeys.seal(created.withUnsafeBytes { Data($0).base64EncodedString() }, for: Self.purpose)
        let inserted = try connection.query(
            """
            INSERT INTO account_erasure_keys (key_sealed, key_id) VALUES (\(sealed.combined), \(sealed.keyID))
            ON CONFLICT (singleton) DO NOTHING RETURNING key_id
            """)
        if !inserted.isEmpty { return created }
        // Another process created it first and committed (the insert waited for it).
        guard let stored = try read(on: connection) else {
            throw StoreError(code: .corruptRow, message: "the account erasure key was neither created nor found")
        }
        cached.withLock { $0 = stored }
        return stored
    }

    private func read(on connection: PostgresConnection) throws -> SymmetricKey? {
        guard let row = try connection.query("SELECT key_sealed, key_id FROM account_erasure_keys").first else {
            return nil
        }
        let sealed = SealedSecret(
            keyID: try row.decode(String.self, at: 1), combined: try row.decode([UInt8].self, at: 0))
        let text = try secretKeys.open(sealed, for: Self.purpose)
        guard let bytes = Data(base64Encoded: text), bytes.count == 32 else {
            throw SecretError(.sealedSecretRejected, "the stored account erasure key is not 32 bytes")
        }
        return SymmetricKey(data: bytes)
    }

    /// Two are equal when they open with the same keys: what they cache is the one key of the installation.
    public static func == (lhs: AccountErasureKeys, rhs: AccountErasureKeys) -> Bool {
        lhs.secretKeys.keys.map(\.id) == rhs.secretKeys.keys.map(\.id)
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(secretKeys.keys.map(\.id))
    }

    /// Key ids only.
    public var description: String { "AccountErasureKeys(\(secretKeys))" }
}
