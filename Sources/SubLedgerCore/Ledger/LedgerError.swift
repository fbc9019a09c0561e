/// Why the ledger refused a whole input (individual transactions are ignored with an outcome instead).
///
/// The description names the bundle id or environment at most; never receipts, tokens or account data.
public struct LedgerError: Error, Hashable, Sendable, CustomStringConvertible {
    /// A stable, machine-readable reason.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: String {
            case unknownBundleID = "unknown_bundle_id"
            case appMismatch = "app_mismatch"
            case environmentNotAllowed = "environment_not_allowed"
            case invalidApp = "invalid_app"
            case inputTooLarge = "input_too_large"
        }

        private let value: Value

        private init(_ value: Value) { self.value = value }

        /// The receipt or input names a bundle id the catalog does not configure.
        public static let unknownBundleID = Code(.unknownBundleID)
        /// The input's bundle id is not the app it was applied for.
        public static let appMismatch = Code(.appMismatch)
        /// The app does not accept the input's environment.
        public static let environmentNotAllowed = Code(.environmentNotAllowed)
        /// The app's catalog entry fails validation.
        public static let invalidApp = Code(.invalidApp)
        /// More transactions or renewal infos than `LedgerInput.maximumItems`.
        public static let inputTooLarge = Code(.inputTooLarge)

        public var description: String { value.rawValue }
    }

    public var code: Code
    /// The bundle id or environment concerned.
    public var subject: String

    public init(code: Code, subject: String) {
        self.code = code
        self.subject = subject
    }

    public var description: String { "ledger error \(code) for '\(subject)'" }
}
