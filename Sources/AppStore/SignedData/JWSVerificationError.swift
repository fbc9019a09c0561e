/// Why a JWS from Apple (transaction, renewal info, notification, app transaction) was not accepted.
///
/// `code` is the machine-readable reason; `description` names only the code and never the token or its
/// payload. `detail` carries a short diagnostic for logs at debug level (no token bytes, no payload values).
public struct JWSVerificationError: Error, Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The machine-readable reason a JWS was rejected.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Base: String, Hashable, Sendable {
            case malformedJWS
            case unsupportedAlgorithm
            case unsupportedCriticalHeader
            case missingCertificateChain
            case malformedCertificate
            case invalidCertificateChain
            case missingAppleOID
            case invalidSignature
            case malformedPayload
            case invalidAppIdentifier
            case invalidEnvironment
            case invalidConfiguration
        }

        private let base: Base

        private init(_ base: Base) { self.base = base }

        /// Not three dot-separated base64url segments, or a header that is not a JSON object (or repeats a key).
        public static let malformedJWS = Code(.malformedJWS)
        /// The header's `alg` is not `ES256`.
        public static let unsupportedAlgorithm = Code(.unsupportedAlgorithm)
        /// The header lists critical extensions (`crit`, RFC 7515 §4.1.11); SubLedger understands none.
        public static let unsupportedCriticalHeader = Code(.unsupportedCriticalHeader)
        /// The header has no `x5c`, or it does not hold exactly three certificates.
        public static let missingCertificateChain = Code(.missingCertificateChain)
        /// An `x5c` entry is not a base64 DER certificate, or the leaf key is not P-256.
        public static let malformedCertificate = Code(.malformedCertificate)
        /// The chain does not lead to a configured root, or a certificate is outside its validity at the checked time.
        public static let invalidCertificateChain = Code(.invalidCertificateChain)
        /// The leaf or intermediate lacks Apple's marker extension (1.2.840.113635.100.6.11.1 / 6.2.1).
        public static let missingAppleOID = Code(.missingAppleOID)
        /// The ES256 signature does not match the header and payload under the leaf's key.
        public static let invalidSignature = Code(.invalidSignature)
        /// The payload is not the JSON shape its kind requires, or an object in it repeats a key.
        public static let malformedPayload = Code(.malformedPayload)
        /// The bundle id or Apple app id in the payload is not this app's.
        public static let invalidAppIdentifier = Code(.invalidAppIdentifier)
        /// The payload's environment is not the configured one.
        public static let invalidEnvironment = Code(.invalidEnvironment)
        /// The verifier was configured inconsistently (no roots, production without an Apple app id).
        public static let invalidConfiguration = Code(.invalidConfiguration)

        /// The stable machine name of the code, e.g. `invalidSignature`.
        public var description: String { base.rawValue }
    }

    /// The machine-readable reason.
    public let code: Code
    /// A short diagnostic for debug logs; never contains the token, certificates or payload values.
    public let detail: String?

    /// Creates an error with a code and an optional diagnostic.
    public init(_ code: Code, detail: String? = nil) {
        self.code = code
        self.detail = detail
    }

    /// `JWSVerificationError(<code>)`, safe to log at any level.
    public var description: String { "JWSVerificationError(\(code))" }

    /// The code with its diagnostic, for debug-level logs.
    public var debugDescription: String {
        detail.map { "JWSVerificationError(\(code)): \($0)" } ?? description
    }

    /// Errors are equal when their codes are; the diagnostic text is informational.
    public static func == (lhs: JWSVerificationError, rhs: JWSVerificationError) -> Bool { lhs.code == rhs.code }

    /// Hashes the code only, consistent with `==`.
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
