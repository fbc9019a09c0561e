/// Why one of the operations on an account's life (a grant, a merge, an erasure) was refused
/// (docs/reference/errors.md): one shape for all three, each with its own codes, told apart by `Operation`
/// (`GrantError`, `MergeError`, `ErasureError`). Its message never repeats text the caller sent.
public struct AccountOperationError<Operation: AccountOperation>: Error, CustomStringConvertible, Sendable, Hashable {
    /// A code of `Operation`'s refusals.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible, CaseIterable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// Every code `Operation` answers with.
        public static var allCases: [Code] { Operation.codes }

        /// `bundle_id` is missing: an admin key acts on every app, so the request names one.
        public static var appRequired: Code { Code(rawValue: "bundle_id_required") }
        /// No app has that bundle id.
        public static var unknownApp: Code { Code(rawValue: "unknown_app") }
        /// An account id the request names breaks the identifier rule (empty, longer than 255 characters, ...).
        public static var invalidAccountID: Code { Code(rawValue: "invalid_account_id") }
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}

/// An operation on an account's life whose refusals are an `AccountOperationError`: it lists its codes.
public protocol AccountOperation: Sendable {
    static var codes: [AccountOperationError<Self>.Code] { get }
}
