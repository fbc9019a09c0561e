/// Why a control call (or a simulated Google answer) was refused; the control API answers it as
/// `{"error": {"code", "message"}}` with `code.httpStatus`.
public struct SimulatorError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of refusal.
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private let name: String
        /// The HTTP status of the control API's answer.
        public let httpStatus: Int
        private init(_ name: String, _ status: Int) {
            self.name = name
            self.httpStatus = status
        }

        /// A field is missing, out of range or of the wrong form.
        public static let badRequest = Code("bad_request", 400)
        /// No such package, product, base plan, offer or purchase.
        public static let notFound = Code("not_found", 404)
        /// The purchase is not in a state that allows the action.
        public static let conflict = Code("conflict", 409)
        public static let internalError = Code("internal_error", 500)

        public var description: String { name }
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { "SimulatorError(\(code)): \(message)" }
}
