/// A PostgreSQL SQLSTATE error code; unknown codes keep their raw five characters.
public struct SQLState: RawRepresentable, Sendable, Hashable, CustomStringConvertible {
    /// The five-character code, e.g. `23505`.
    public let rawValue: String

    /// Wraps a raw code exactly as the server sent it.
    public init(rawValue: String) {
        self.rawValue = rawValue
    }

    /// The two-character class, e.g. `23` for integrity constraint violations.
    public var errorClass: String { String(rawValue.prefix(2)) }

    public var description: String { rawValue }

    // Class 08: connection exception.
    public static let connectionException = SQLState(rawValue: "08000")
    public static let connectionDoesNotExist = SQLState(rawValue: "08003")
    public static let connectionFailure = SQLState(rawValue: "08006")
    // Class 0A: feature not supported (also "cached plan must not change result type").
    public static let featureNotSupported = SQLState(rawValue: "0A000")
    // Class 22: data exception.
    public static let dataException = SQLState(rawValue: "22000")
    public static let stringDataRightTruncation = SQLState(rawValue: "22001")
    public static let numericValueOutOfRange = SQLState(rawValue: "22003")
    public static let invalidDatetimeFormat = SQLState(rawValue: "22007")
    public static let datetimeFieldOverflow = SQLState(rawValue: "22008")
    public static let divisionByZero = SQLState(rawValue: "22012")
    public static let invalidTextRepresentation = SQLState(rawValue: "22P02")
    public static let invalidParameterValue = SQLState(rawValue: "22023")
    // Class 23: integrity constraint violation.
    public static let integrityConstraintViolation = SQLState(rawValue: "23000")
    public static let restrictViolation = SQLState(rawValue: "23001")
    public static let notNullViolation = SQLState(rawValue: "23502")
    public static let foreignKeyViolation = SQLState(rawValue: "23503")
    public static let uniqueViolation = SQLState(rawValue: "23505")
    public static let checkViolation = SQLState(rawValue: "23514")
    public static let exclusionViolation = SQLState(rawValue: "23P01")
    // Class 25: invalid transaction state.
    public static let activeSQLTransaction = SQLState(rawValue: "25001")
    public static let readOnlySQLTransaction = SQLState(rawValue: "25006")
    public static let inFailedSQLTransaction = SQLState(rawValue: "25P02")
    // Class 26: invalid SQL statement name (e.g. a prepared statement that does not exist).
    public static let invalidSQLStatementName = SQLState(rawValue: "26000")
    // Class 28: invalid authorization specification.
    public static let invalidAuthorizationSpecification = SQLState(rawValue: "28000")
    public static let invalidPassword = SQLState(rawValue: "28P01")
    // Class 3D / 3F: invalid catalog or schema name.
    public static let invalidCatalogName = SQLState(rawValue: "3D000")
    public static let invalidSchemaName = SQLState(rawValue: "3F000")
    // Class 40: transaction rollback.
    public static let transactionRollback = SQLState(rawValue: "40000")
    public static let serializationFailure = SQLState(rawValue: "40001")
    public static let deadlockDetected = SQLState(rawValue: "40P01")
    // Class 42: syntax error or access rule violation.
    public static let syntaxError = SQLState(rawValue: "42601")
    public static let insufficientPrivilege = SQLState(rawValue: "42501")
    public static let undefinedColumn = SQLState(rawValue: "42703")
    public static let undefinedFunction = SQLState(rawValue: "42883")
    public static let undefinedTable = SQLState(rawValue: "42P01")
    public static let undefinedObject = SQLState(rawValue: "42704")
    public static let duplicateTable = SQLState(rawValue: "42P07")
    public static let duplicateObject = SQLState(rawValue: "42710")
    public static let duplicateSchema = SQLState(rawValue: "42P06")
    // Class 53: insufficient resources.
    public static let tooManyConnections = SQLState(rawValue: "53300")
    // Class 55: object not in prerequisite state.
    public static let lockNotAvailable = SQLState(rawValue: "55P03")
    // Class 57: operator intervention.
    public static let queryCanceled = SQLState(rawValue: "57014")
    public static let adminShutdown = SQLState(rawValue: "57P01")
    public static let crashShutdown = SQLState(rawValue: "57P02")
    public static let cannotConnectNow = SQLState(rawValue: "57P03")
    public static let idleSessionTimeout = SQLState(rawValue: "57P05")
    // Class 58: system error.
    public static let ioError = SQLState(rawValue: "58030")
    // Class XX: internal error.
    public static let internalError = SQLState(rawValue: "XX000")

    /// Whether the whole transaction may succeed if retried from the start (serialization failure, deadlock).
    public var isRetryableTransactionFailure: Bool {
        self == .serializationFailure || self == .deadlockDetected
    }

    /// Whether the code means the session is gone (connection exceptions, server shutdown or termination).
    public var meansConnectionIsGone: Bool {
        errorClass == "08" || self == .adminShutdown || self == .crashShutdown || self == .cannotConnectNow
            || self == .idleSessionTimeout
    }
}
