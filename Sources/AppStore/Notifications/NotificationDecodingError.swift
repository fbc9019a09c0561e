/// Why a server notification (V1 or V2) was not accepted; never contains the body, password or tokens.
public struct NotificationDecodingError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The machine-readable reason.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// The body is not the JSON shape of its version.
        public static let malformedBody = Code("malformedBody")
        /// The body exceeds the accepted size.
        public static let bodyTooLarge = Code("bodyTooLarge")
        /// A signed part failed verification (see `verificationError`).
        public static let verificationFailed = Code("verificationFailed")
        /// V1: the `password` is not the app's shared secret.
        public static let wrongPassword = Code("wrongPassword")
        /// V1: no shared secret is configured, so a V1 notification cannot be authenticated.
        public static let missingSharedSecret = Code("missingSharedSecret")
        /// The notification is for another app.
        public static let invalidAppIdentifier = Code("invalidAppIdentifier")
        /// The notification is for another environment.
        public static let invalidEnvironment = Code("invalidEnvironment")
        /// Authentic, but lacking what the core requires (see `mappingError`).
        public static let unmappable = Code("unmappable")

        /// The stable machine name.
        public var description: String { name }
    }

    /// The machine-readable reason.
    public let code: Code
    /// The signature-layer reason, for `verificationFailed`.
    public let verificationError: JWSVerificationError?
    /// The mapping reason, for `unmappable`.
    public let mappingError: PayloadMappingError?

    /// Creates an error.
    public init(
        _ code: Code,
        verificationError: JWSVerificationError? = nil,
        mappingError: PayloadMappingError? = nil
    ) {
        self.code = code
        self.verificationError = verificationError
        self.mappingError = mappingError
    }

    /// `NotificationDecodingError(<code>[, <cause>])`.
    public var description: String {
        if let verificationError { return "NotificationDecodingError(\(code), \(verificationError.code))" }
        if let mappingError { return "NotificationDecodingError(\(code), \(mappingError.code): \(mappingError.field))" }
        return "NotificationDecodingError(\(code))"
    }
}
