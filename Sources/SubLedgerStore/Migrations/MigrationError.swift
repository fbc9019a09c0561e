/// Why `subledger migrate` (or the readiness check) refused a database or a schema file.
public struct MigrationError: Error, CustomStringConvertible, Sendable, Hashable {
    /// A machine-readable reason.
    public struct Code: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }
        public var description: String { rawValue }

        /// The migrations do not have the `-- step N:` structure (one step per file, numbered one by one).
        public static let malformedScript = Code(rawValue: "malformed_schema_script")
        /// An applied step's text has changed since it was applied.
        public static let appliedStepChanged = Code(rawValue: "applied_step_changed")
        /// The database has steps this build does not know: it was migrated by a newer SubLedger.
        public static let databaseIsNewer = Code(rawValue: "database_is_newer")
    }

    public var code: Code
    public var message: String
    public var description: String { "\(code): \(message)" }

    static func malformedScript(_ message: String) -> MigrationError {
        MigrationError(code: .malformedScript, message: message)
    }
}
