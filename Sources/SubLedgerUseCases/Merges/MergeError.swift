/// Why a merge or a listing of aliases was refused (docs/reference/errors.md).
public struct MergeError: Error, CustomStringConvertible, Sendable, Hashable {
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible, CaseIterable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// `bundle_id` is missing.
        public static let appRequired = Code(rawValue: "bundle_id_required")
        /// No app has that bundle id.
        public static let unknownApp = Code(rawValue: "unknown_app")
        /// An account id (the path's or `from`) breaks the identifier rule (empty, longer than 255 characters, ...).
        public static let invalidAccountID = Code(rawValue: "invalid_account_id")
        /// The body names no `from`.
        public static let missingFrom = Code(rawValue: "missing_merge_source")
        /// `from` is the account merged into.
        public static let mergeIntoSelf = Code(rawValue: "merge_into_self")
        /// The account to merge into was merged into another one itself (merge into that one), or `from` was merged
        /// into another account before (which would make the aliases a cycle or a fork).
        public static let accountMerged = Code(rawValue: "account_merged")

        public static var allCases: [Code] {
            [.appRequired, .unknownApp, .invalidAccountID, .missingFrom, .mergeIntoSelf, .accountMerged]
        }
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}
