/// Why an import as a whole could not run (a row's failure is an `ImportRowError` instead).
public struct ImportError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong, as a stable code.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        let name: String
        private init(_ name: String) { self.name = name }
        /// The file is unreadable as an import file (header, size).
        public static let invalidFile = Code("invalid_file")
        /// The app is unknown or cannot be imported for (no Server API key for an original-id row).
        public static let invalidApp = Code("invalid_app")
        /// An option is out of range.
        public static let invalidOption = Code("invalid_option")
        public var description: String { name }
    }

    public var code: Code
    public var message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "\(code): \(message)" }
}
