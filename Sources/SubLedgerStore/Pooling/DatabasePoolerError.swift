/// A database connection that does not match `SUBLEDGER_DATABASE_POOLER`: the process refuses to start.
public struct DatabasePoolerError: Error, CustomStringConvertible, Sendable, Equatable {
    /// Why.
    public enum Code: String, Sendable {
        /// The connection goes through a pooler the configuration does not declare.
        case undeclaredPooler = "undeclared_pooler"
        /// Behind a transaction pooler, the server's defaults differ from the settings decoding relies on.
        case sessionDefaults = "session_defaults"
        /// Work that needs a session of its own (LISTEN, the migrator's lock) has no direct connection.
        case directConnectionRequired = "direct_connection_required"
    }

    public let code: Code
    public let message: String

    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    public var description: String { message }
}
