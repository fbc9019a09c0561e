/// Why a JWT (a Pub/Sub push token, a service account's assertion) was not accepted. Each check has its own
/// code; `description` never holds the token or its claims.
public struct JWTVerificationError: Error, Hashable, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The reason.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// No `Authorization: Bearer` header, or an empty token.
        public static let missingToken = Code("missingToken")
        /// Not three base64url segments of JSON, or longer than the bound.
        public static let malformedToken = Code("malformedToken")
        /// The header's `alg` is not `RS256`.
        public static let unsupportedAlgorithm = Code("unsupportedAlgorithm")
        /// No trusted key has the header's `kid`.
        public static let unknownKey = Code("unknownKey")
        /// The signature does not verify under the key.
        public static let invalidSignature = Code("invalidSignature")
        /// `iss` is not an accepted issuer.
        public static let invalidIssuer = Code("invalidIssuer")
        /// `aud` is not the expected audience.
        public static let invalidAudience = Code("invalidAudience")
        /// `exp` is missing or has passed (beyond the leeway).
        public static let expired = Code("expired")
        /// `iat` or `nbf` lies in the future (beyond the leeway).
        public static let notYetValid = Code("notYetValid")
        /// `exp` is too far after `iat` (a service account's assertion lives at most an hour).
        public static let lifetimeTooLong = Code("lifetimeTooLong")
        /// `email` is not the configured service account.
        public static let invalidEmail = Code("invalidEmail")
        /// `email_verified` is not `true`.
        public static let emailNotVerified = Code("emailNotVerified")
        /// `scope` does not grant what is asked.
        public static let invalidScope = Code("invalidScope")

        public var description: String { name }
    }

    public let code: Code
    /// A short diagnostic for debug logs; never token bytes or claim values.
    public let detail: String?

    public init(_ code: Code, detail: String? = nil) {
        self.code = code
        self.detail = detail
    }

    public var description: String { "JWTVerificationError(\(code))" }
    public var debugDescription: String { detail.map { "JWTVerificationError(\(code)): \($0)" } ?? description }

    /// Errors are equal when their codes are.
    public static func == (lhs: Self, rhs: Self) -> Bool { lhs.code == rhs.code }
    public func hash(into hasher: inout Hasher) { hasher.combine(code) }
}
