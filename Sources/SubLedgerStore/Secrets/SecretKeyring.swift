import Crypto
import Foundation

/// The secret keys this process knows, newest first: the first seals, every one opens.
///
/// Several keys are configured during a rotation: the new key first (new secrets are sealed with it),
/// the old ones after it (secrets not yet re-sealed still open). See docs/guides/operate.md, "Secrets at rest".
public struct SecretKeyring: Sendable, CustomStringConvertible {
    /// Newest first.
    public let keys: [SecretKey]

    /// No keys: plaintext secrets can be read, nothing can be sealed or opened.
    public init() {
        keys = []
    }

    /// `keys`, newest first; the same key twice is refused (an editing mistake, most likely).
    public init(keys: [SecretKey]) throws(SecretError) {
        var seen = Set<String>()
        for key in keys where !seen.insert(key.id).inserted {
            throw SecretError(.malformedKey, "key \(key.id) is listed twice")
        }
        self.keys = keys
    }

    /// The keys in `text`: one base64 key per line (or separated by commas), newest first; blank lines and
    /// lines starting with `#` are ignored. `source` names the file or variable in errors, which never
    /// quote the text (it may be a key).
    public static func parse(_ text: String, source: String) throws(SecretError) -> SecretKeyring {
        var keys: [SecretKey] = []
        let lines = text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" })
        for (number, line) in lines.enumerated() {
            let content = line.trimmingCharacters(in: .whitespaces)
            if content.isEmpty || content.hasPrefix("#") { continue }
            for item in content.split(separator: ",", omittingEmptySubsequences: false) {
                do {
                    keys.append(try SecretKey(base64: item))
                } catch {
                    throw SecretError(
                        .malformedKey,
                        "\(source), line \(number + 1): not a base64 256-bit key (create one with `subledger secrets generate-key`)"
                    )
                }
            }
        }
        guard !keys.isEmpty else {
            throw SecretError(.noKeyInSource, "\(source) holds no secret key")
        }
        do {
            return try SecretKeyring(keys: keys)
        } catch {
            throw SecretError(error.code, "\(source): \(error.message)")
        }
    }

    /// The key that seals: the first one.
    public var current: SecretKey? { keys.first }

    public var isEmpty: Bool { keys.isEmpty }

    /// The key with `id`, if configured.
    public func key(id: String) -> SecretKey? {
        keys.first { $0.id == id }
    }

    /// Seals `plaintext` for `purpose` with the current key.
    public func seal(_ plaintext: String, for purpose: SecretPurpose) throws(SecretError) -> SealedSecret {
        guard let key = current else {
            throw SecretError(.noSecretKey, "no secret key is configured to seal the \(purpose)")
        }
        do {
            let box = try AES.GCM.seal(
                Data(plaintext.utf8), using: key.symmetricKey, authenticating: purpose.associatedData)
            guard let combined = box.combined else {
                throw SecretError(.sealedSecretRejected, "AES-GCM gave no combined form")
            }
            return SealedSecret(keyID: key.id, combined: [UInt8](combined))
        } catch let error as SecretError {
            throw error
        } catch {
            throw SecretError(.sealedSecretRejected, "sealing the \(purpose) failed")
        }
    }

    /// Opens `sealed` as the secret of `purpose` with the key it names.
    public func open(_ sealed: SealedSecret, for purpose: SecretPurpose) throws(SecretError) -> String {
        guard let key = key(id: sealed.keyID) else {
            throw SecretError(
                .keyUnavailable,
                "the \(purpose) is sealed with secret key \(sealed.keyID), which is not configured "
                    + "(configured: \(keys.isEmpty ? "none" : keys.map(\.id).joined(separator: ", ")))")
        }
        let opened: Data
        do {
            let box = try AES.GCM.SealedBox(combined: sealed.combined)
            opened = try AES.GCM.open(box, using: key.symmetricKey, authenticating: purpose.associatedData)
        } catch {
            throw SecretError(
                .sealedSecretRejected,
                "the stored \(purpose) does not authenticate with key \(sealed.keyID): it was altered or copied from elsewhere"
            )
        }
        guard let text = String(validating: opened, as: UTF8.self) else {
            throw SecretError(.sealedSecretRejected, "the stored \(purpose) is not UTF-8 text")
        }
        return text
    }

    /// Key ids only, newest first.
    public var description: String { "SecretKeyring([\(keys.map(\.id).joined(separator: ", "))])" }
}
