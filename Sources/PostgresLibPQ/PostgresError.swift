import Foundation

/// An error from the PostgreSQL client: what went wrong, the server's SQLSTATE and diagnostics.
///
/// `description` is safe to log at any level: it holds the kind, the SQLSTATE, the server's primary
/// message with any parameter text removed, and the constraint name. It never holds query parameters,
/// the server's detail (which repeats row values, e.g. `Key (email)=(…) already exists`) or passwords;
/// those extras appear in `debugDescription` only (parameters never do).
public struct PostgresError: Error, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// The category of failure; new kinds can be added without breaking callers.
    public struct Kind: Sendable, Hashable, CustomStringConvertible {
        private enum Base: String, Sendable, Hashable {
            case invalidConfiguration
            case connectionFailed
            case connectionLost
            case queryFailed
            case unexpectedResult
            case invalidParameter
            case decoding
            case copyFailed
            case transactionAborted
            case poolTimeout
            case poolClosed
        }

        private let base: Base

        private init(_ base: Base) {
            self.base = base
        }

        /// The connection string or settings could not be understood.
        public static let invalidConfiguration = Kind(.invalidConfiguration)
        /// A connection could not be opened.
        public static let connectionFailed = Kind(.connectionFailed)
        /// An open connection broke (server closed it, network failure, backend terminated).
        public static let connectionLost = Kind(.connectionLost)
        /// The server rejected a statement; see `sqlState`.
        public static let queryFailed = Kind(.queryFailed)
        /// The server answered in a way this client did not expect (e.g. COPY through `query`).
        public static let unexpectedResult = Kind(.unexpectedResult)
        /// A parameter could not be sent (e.g. text with a NUL byte, a bad channel name).
        public static let invalidParameter = Kind(.invalidParameter)
        /// A column value could not be decoded into the requested Swift type.
        public static let decoding = Kind(.decoding)
        /// A COPY FROM STDIN could not stream its rows.
        public static let copyFailed = Kind(.copyFailed)
        /// COMMIT found the transaction already aborted by an earlier error that the body swallowed.
        public static let transactionAborted = Kind(.transactionAborted)
        /// No pooled connection became free within the acquire timeout.
        public static let poolTimeout = Kind(.poolTimeout)
        /// The pool was shut down.
        public static let poolClosed = Kind(.poolClosed)

        public var description: String { base.rawValue }
    }

    /// The category of failure.
    public var kind: Kind
    /// The server's SQLSTATE, when the server reported one.
    public var sqlState: SQLState?
    /// A one-line message safe to log: the server's primary message with parameter text redacted.
    public var message: String
    /// The server's DETAIL field; may contain row values, so it only appears in `debugDescription`.
    public var detail: String?
    /// The server's HINT field.
    public var hint: String?
    /// The violated constraint, for integrity errors.
    public var constraintName: String?
    /// The schema of the object involved, when the server names it.
    public var schemaName: String?
    /// The table involved, when the server names it.
    public var tableName: String?
    /// The column involved (for decoding errors, the result column that could not be decoded).
    public var columnName: String?
    /// The server's severity (ERROR, FATAL, PANIC), non-localized.
    public var severity: String?
    /// The server's CONTEXT field: where the error arose (a PL/pgSQL line, or, from a Citus coordinator, the
    /// worker a command ran on); only in `debugDescription`.
    public var context: String?
    /// The SQL text that failed (never its parameters); only in `debugDescription`.
    public var query: String?
    /// The server's primary message before redaction; only in `debugDescription`.
    var unredactedMessage: String?

    /// Creates an error of a kind with a log-safe message.
    public init(_ kind: Kind, message: String, sqlState: SQLState? = nil) {
        self.kind = kind
        self.message = message
        self.sqlState = sqlState
    }

    /// Whether retrying the whole transaction may succeed (serialization failure or deadlock).
    public var isRetryableTransactionFailure: Bool {
        sqlState?.isRetryableTransactionFailure ?? false
    }

    /// Whether the connection that raised this error is no longer usable.
    public var isConnectionError: Bool {
        kind == .connectionFailed || kind == .connectionLost || (sqlState?.meansConnectionIsGone ?? false)
    }

    /// Whether a Citus coordinator lost its connection to a worker under this statement (the worker restarted,
    /// crashed or became unreachable): libpq's own error on that link has no SQLSTATE, which the coordinator
    /// reports as XX000 in the context "while executing command on HOST:PORT". The coordinator session itself
    /// is intact and its transaction is rolled back (the commit is two-phase); the database is unavailable for
    /// the moment, as when `isConnectionError`. A refusal the worker itself sent keeps the worker's SQLSTATE.
    /// A link lost while the coordinator copies rows to a shard (a multi-row insert) is reported as 58030, "failed
    /// to COPY to shard N on HOST:PORT".
    public var isRemoteNodeFailure: Bool {
        switch sqlState {
        case .internalError?: context?.contains("while executing command on ") ?? false
        case .ioError?: (unredactedMessage ?? message).hasPrefix("failed to COPY to shard ")
        default: false
        }
    }

    public var description: String {
        var text = "PostgresError.\(kind)"
        if let sqlState {
            text += " (\(sqlState.rawValue))"
        }
        text += ": \(message)"
        if let constraintName {
            text += " [constraint: \(constraintName)]"
        }
        if let columnName, kind == .decoding {
            text += " [column: \(columnName)]"
        }
        return text
    }

    public var debugDescription: String {
        var lines = [description]
        if let unredactedMessage, unredactedMessage != message {
            lines.append("server message: \(unredactedMessage)")
        }
        if let severity { lines.append("severity: \(severity)") }
        if let detail { lines.append("detail: \(detail)") }
        if let hint { lines.append("hint: \(hint)") }
        if let schemaName { lines.append("schema: \(schemaName)") }
        if let tableName { lines.append("table: \(tableName)") }
        if let columnName { lines.append("column: \(columnName)") }
        if let context { lines.append("context: \(context)") }
        if let query { lines.append("query: \(query)") }
        return lines.joined(separator: "\n  ")
    }
}

extension PostgresError {
    static func decoding(column: String, index: Int, _ problem: String) -> PostgresError {
        var error = PostgresError(.decoding, message: "column \"\(column)\" (index \(index)): \(problem)")
        error.columnName = column
        return error
    }

    static func invalidParameter(_ message: String) -> PostgresError {
        PostgresError(.invalidParameter, message: message)
    }
}

/// Removes secrets from text that libpq or the server produced.
enum SecretRedaction {
    static let mask = "<redacted>"

    /// Replaces every occurrence of each secret (parameter text, passwords) with a mask.
    /// Secrets shorter than three characters are left alone: masking them would shred the message
    /// without protecting anything worth protecting.
    static func redact(_ text: String, secrets: some Sequence<String>) -> String {
        var result = text
        for secret in secrets where secret.count >= 3 && result.contains(secret) {
            result = result.replacingOccurrences(of: secret, with: mask)
        }
        return result
    }

    /// Masks passwords in connection strings embedded in text (`user:pw@host`, `password=pw`).
    static func redactConnectionStrings(_ text: String) -> String {
        var result = text
        // postgresql://user:secret@host → postgresql://user:<redacted>@host
        if let scheme = result.range(of: "://") {
            let rest = result[scheme.upperBound...]
            if let at = rest.firstIndex(of: "@") {
                let userInfo = rest[..<at]
                if let colon = userInfo.firstIndex(of: ":") {
                    result.replaceSubrange(result.index(after: colon)..<at, with: mask)
                }
            }
        }
        // password=secret or password='sec ret' → password=<redacted>
        var searchStart = result.startIndex
        while let keyword = result.range(
            of: "password", options: .caseInsensitive, range: searchStart..<result.endIndex)
        {
            var cursor = keyword.upperBound
            while cursor < result.endIndex, result[cursor] == " " { cursor = result.index(after: cursor) }
            guard cursor < result.endIndex, result[cursor] == "=" else {
                searchStart = keyword.upperBound
                continue
            }
            cursor = result.index(after: cursor)
            while cursor < result.endIndex, result[cursor] == " " { cursor = result.index(after: cursor) }
            let valueStart = cursor
            if cursor < result.endIndex, result[cursor] == "'" {
                cursor = result.index(after: cursor)
                while cursor < result.endIndex, result[cursor] != "'" {
                    if result[cursor] == "\\" { cursor = result.index(after: cursor) }
                    if cursor < result.endIndex { cursor = result.index(after: cursor) }
                }
                if cursor < result.endIndex { cursor = result.index(after: cursor) }
            } else {
                while cursor < result.endIndex, result[cursor] != " ", result[cursor] != "&" {
                    cursor = result.index(after: cursor)
                }
            }
            result.replaceSubrange(valueStart..<cursor, with: mask)
            let resumeOffset = result.distance(from: result.startIndex, to: valueStart) + mask.count
            searchStart = result.index(result.startIndex, offsetBy: resumeOffset)
        }
        return result
    }
}
