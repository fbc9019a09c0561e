/// Why a grant, a revocation or a listing of grants was refused (docs/errors.md). Its message never repeats
/// the reason text.
public struct GrantError: Error, CustomStringConvertible, Sendable, Hashable {
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible, CaseIterable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// `bundle_id` is missing: an admin key acts on every app, so the request names one.
        public static let appRequired = Code(rawValue: "bundle_id_required")
        /// No app has that bundle id.
        public static let unknownApp = Code(rawValue: "unknown_app")
        /// The account id breaks the identifier rule.
        public static let invalidAccountID = Code(rawValue: "invalid_account_id")
        /// No product of the app's catalog carries the entitlement (or none was named).
        public static let unknownEntitlement = Code(rawValue: "unknown_entitlement")
        /// Neither or both of `until` and `duration`, a `duration` that is not like `30d`, or one out of range
        /// (positive, at most 100 years).
        public static let invalidGrantDuration = Code(rawValue: "invalid_grant_duration")
        /// `until` is not an RFC 3339 time, or is not after now.
        public static let grantEndsInPast = Code(rawValue: "grant_ends_in_past")
        /// The reason is missing, longer than 500 characters, or holds control characters.
        public static let invalidGrantReason = Code(rawValue: "invalid_grant_reason")
        /// The environment is not `Production` or `Sandbox`, or the app does not allow it.
        public static let invalidGrantEnvironment = Code(rawValue: "invalid_grant_environment")
        /// The `Idempotency-Key` is empty, longer than 200 characters, or holds control characters.
        public static let invalidIdempotencyKey = Code(rawValue: "invalid_idempotency_key")
        /// The `Idempotency-Key` was used for another grant of the account (another entitlement or environment).
        public static let idempotencyKeyReused = Code(rawValue: "idempotency_key_reused")
        /// The grant id is not a UUID.
        public static let invalidGrantID = Code(rawValue: "invalid_grant_id")
        /// The account has no grant with that id in the app.
        public static let grantNotFound = Code(rawValue: "grant_not_found")

        public static var allCases: [Code] {
            [
                .appRequired, .unknownApp, .invalidAccountID, .unknownEntitlement, .invalidGrantDuration,
                .grantEndsInPast, .invalidGrantReason, .invalidGrantEnvironment, .invalidIdempotencyKey,
                .idempotencyKeyReused, .invalidGrantID, .grantNotFound,
            ]
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
