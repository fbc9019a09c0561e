/// Why an external purchase token was refused; never contains the token.
public struct ExternalPurchaseTokenError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The machine-readable reason.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// Not base64url of a JSON object, longer than a token can be, or a text holding NUL.
        public static let malformed = Code("malformed")
        /// A field every token has (`externalPurchaseId`, `bundleId`, `appAppleId`, `tokenCreationDate`) is absent.
        public static let missingField = Code("missingField")
        /// The token is another app's (`bundleId`).
        public static let wrongBundle = Code("wrongBundle")
        /// The token is another app's (`appAppleId`).
        public static let wrongApp = Code("wrongApp")
        /// `tokenCreationDate` is before the External Purchase API existed or after now (with the allowed skew).
        public static let creationDateOutOfRange = Code("creationDateOutOfRange")
        /// `tokenType` is not one of Apple's values.
        public static let unknownTokenType = Code("unknownTokenType")
        /// `externalPurchaseId` is longer than 128 characters or holds characters Apple's ids never have.
        public static let invalidIdentifier = Code("invalidIdentifier")

        /// The stable machine name.
        public var description: String { name }
    }

    /// The machine-readable reason.
    public let code: Code
    /// Apple's name of the field concerned, when one is.
    public let field: String?

    /// Creates an error.
    public init(_ code: Code, field: String? = nil) {
        self.code = code
        self.field = field
    }

    /// `ExternalPurchaseTokenError(<code>, field: <field>)`.
    public var description: String {
        "ExternalPurchaseTokenError(\(code)\(field.map { ", field: \($0)" } ?? ""))"
    }
}
