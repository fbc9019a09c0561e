/// A failure to read a secret key or to seal or open a secret at rest.
///
/// Its description names key ids, files and apps, never key material or a secret.
public struct SecretError: Error, CustomStringConvertible, Sendable, Hashable {
    /// A machine-readable reason.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// A key file or variable holds something that is not a base64 256-bit key.
        public static let malformedKey = Code(rawValue: "malformed_secret_key")
        /// A key file or variable holds no key at all.
        public static let noKeyInSource = Code(rawValue: "no_secret_key_in_source")
        /// The key file cannot be read or created.
        public static let unreadableKeyFile = Code(rawValue: "unreadable_secret_key_file")
        /// More than one place names the keys (e.g. a key file and `SUBLEDGER_SECRET_KEY`).
        public static let conflictingKeySources = Code(rawValue: "conflicting_secret_key_sources")
        /// A secret is to be stored but no key is configured (and plaintext was not explicitly allowed).
        public static let noSecretKey = Code(rawValue: "no_secret_key")
        /// A stored secret was sealed with a key that is not configured.
        public static let keyUnavailable = Code(rawValue: "secret_key_unavailable")
        /// A sealed secret did not authenticate: altered, or moved from another app or field.
        public static let sealedSecretRejected = Code(rawValue: "sealed_secret_rejected")
    }

    public var code: Code
    public var message: String
    public var description: String { "\(code): \(message)" }

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }
}
