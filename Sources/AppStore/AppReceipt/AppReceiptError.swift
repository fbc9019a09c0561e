/// Why an app receipt could not be read; never contains receipt bytes.
public struct AppReceiptError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The machine-readable reason.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// Larger than the reader's bound.
        public static let tooLarge = Code("tooLarge")
        /// Not base64.
        public static let invalidBase64 = Code("invalidBase64")
        /// Not a BER/DER PKCS#7 ContentInfo with SignedData (garbage, truncated, or nested too deep).
        public static let malformedContainer = Code("malformedContainer")
        /// A well-formed container whose content type is not signedData / data.
        public static let unexpectedContentType = Code("unexpectedContentType")
        /// The signed content is not Apple's SET of receipt attributes.
        public static let malformedPayload = Code("malformedPayload")
        /// A date attribute lies outside `Instant.acceptedRange` (see `field`).
        public static let dateOutOfRange = Code("dateOutOfRange")

        /// The stable machine name.
        public var description: String { name }
    }

    /// The machine-readable reason.
    public let code: Code
    /// The attribute concerned, when one is (a name such as `expires_date`, never a value).
    public let field: String?

    /// Creates an error.
    public init(_ code: Code, field: String? = nil) {
        self.code = code
        self.field = field
    }

    /// `AppReceiptError(<code>[, field: <name>])`.
    public var description: String {
        guard let field else { return "AppReceiptError(\(code))" }
        return "AppReceiptError(\(code), field: \(field))"
    }
}
