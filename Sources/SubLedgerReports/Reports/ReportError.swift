import SubLedgerCore

/// A report that cannot be produced: bad arguments, or nothing to report on.
///
/// Its `description` is meant for the person who asked (the command prints it, the HTTP layer answers
/// 400 or 404 by `code`).
public struct ReportError: Error, CustomStringConvertible, Sendable, Hashable {
    /// A machine-readable reason.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible, CaseIterable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// An argument is missing, malformed or out of range (HTTP 400).
        public static let invalidArgument = Code(rawValue: "invalid_argument")
        /// No report has that name (HTTP 404).
        public static let unknownReport = Code(rawValue: "unknown_report")
        /// No app has the bundle id given (HTTP 404).
        public static let unknownApp = Code(rawValue: "unknown_app")
        /// The account or original transaction asked about is not in the ledger (HTTP 404).
        public static let notFound = Code(rawValue: "not_found")

        /// Every code above (docs/reference/errors.md is held against them).
        public static let allCases: [Code] = [.invalidArgument, .unknownReport, .unknownApp, .notFound]
    }

    public var code: Code
    public var message: String
    public var description: String { message }

    public init(code: Code, message: String) {
        self.code = code
        self.message = message
    }

    static func invalidArgument(_ message: String) -> ReportError {
        ReportError(code: .invalidArgument, message: message)
    }

    /// Throws `invalidArgument` unless `from` is before `to`.
    static func checkRange(from: Instant, to: Instant) throws {
        guard from < to else { throw invalidArgument("--from must be before --to") }
    }

    static func unknownApp(_ bundleID: String) -> ReportError {
        ReportError(code: .unknownApp, message: "no app has the bundle id '\(bundleID)'")
    }

    static func notFound(_ message: String) -> ReportError {
        ReportError(code: .notFound, message: message)
    }
}
