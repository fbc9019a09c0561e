import SubLedgerStore

/// Why an erasure was refused, or a request naming an erased account (docs/reference/errors.md).
public struct ErasureError: Error, CustomStringConvertible, Sendable, Hashable {
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible, CaseIterable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// `bundle_id` is missing.
        public static let appRequired = Code(rawValue: "bundle_id_required")
        /// No app has that bundle id.
        public static let unknownApp = Code(rawValue: "unknown_app")
        /// The account id breaks the identifier rule (empty, longer than 255 characters, ...).
        public static let invalidAccountID = Code(rawValue: "invalid_account_id")
        /// No row of the app names the account.
        public static let accountNotFound = Code(rawValue: "account_not_found")
        /// The account was erased: erasing it again, reading its entitlements, submitting for it, merging into it.
        public static let accountErased = Code(rawValue: "account_erased")
        /// No secret key is configured: the key erased ids are digested with cannot be sealed (or opened).
        public static let secretKeyRequired = Code(rawValue: "erasure_needs_secret_key")

        public static var allCases: [Code] {
            [.appRequired, .unknownApp, .invalidAccountID, .accountNotFound, .accountErased, .secretKeyRequired]
        }
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// The store's refusal, as answered.
    public init(_ conflict: AccountErasureConflict) {
        switch conflict {
        case .erased: self.init(.accountErased, "the account was erased")
        case .unknown: self.init(.accountNotFound, "the app has no such account")
        case .secretKeyRequired:
            self.init(
                .secretKeyRequired,
                "erasure needs a secret key (SUBLEDGER_SECRET_KEY_FILE or SUBLEDGER_SECRET_KEY): erased ids are "
                    + "known by a digest under a key sealed with it (docs/guides/accounts.md, \"Erasing an account\")")
        }
    }

    public var description: String { "\(code): \(message)" }
}
