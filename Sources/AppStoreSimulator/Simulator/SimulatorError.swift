/// Why a control operation was refused; carries the HTTP status the control API answers with.
public struct SimulatorError: Error, Sendable, CustomStringConvertible {
    /// The machine-readable reason.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        /// The HTTP status for this code.
        public let httpStatus: Int
        private init(_ name: String, _ httpStatus: Int) {
            self.name = name
            self.httpStatus = httpStatus
        }

        /// The request is malformed or names inconsistent things.
        public static let badRequest = Code("badRequest", 400)
        /// An app, product, Apple ID, transaction or request does not exist.
        public static let notFound = Code("notFound", 404)
        /// The operation does not apply in the current state (e.g. refunding twice).
        public static let conflict = Code("conflict", 409)
        /// The simulator failed internally (signing, encoding).
        public static let internalError = Code("internalError", 500)

        /// The stable machine name.
        public var description: String { name }
    }

    /// The machine-readable reason.
    public let code: Code
    /// A human-readable explanation (never contains secrets).
    public let message: String

    /// Creates an error.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `SimulatorError(<code>: <message>)`.
    public var description: String { "SimulatorError(\(code): \(message))" }
}
