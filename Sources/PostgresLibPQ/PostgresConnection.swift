import CLibPQ
import Foundation
import Logging

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// One libpq connection (`PGconn`). Blocking; used by one thread at a time; not `Sendable`.
///
/// Inside the process, reach it through `PostgresPool.withConnection`/`transaction`, which run the
/// body on the connection's own thread. Values travel as `$1…` parameters, never spliced into SQL.
public final class PostgresConnection {
    /// The configuration this connection was opened with.
    public let configuration: PostgresConfiguration
    let logger: Logger
    private var handle: OpaquePointer?
    private let noticeSink: NoticeSink
    /// Automatically prepared statements, keyed by SQL text and parameter types.
    var statementCache = StatementCache()
    /// The first error seen since BEGIN that put the transaction into the failed state.
    var errorThatAbortedTransaction: PostgresError?
    /// How many times this connection has waited for the server: one per statement (`query`, `prepare`,
    /// `execute(script:)`), one per `pipeline` however many statements it holds. For tests and profiles.
    public internal(set) var roundTrips = 0
    /// The BEGIN of a transaction whose body has sent nothing yet (`transaction`): it goes with the first
    /// statement, in the pipeline's round trip when that is a pipeline, else just before it.
    var pendingBegin: String?
    /// Set when a transaction's body sent its COMMIT with its last batch (`pipeline(_:committing:)`): the
    /// transaction is over, `transaction` sends no COMMIT of its own, and any further statement is refused.
    var committedInBody = false

    private init(handle: OpaquePointer, configuration: PostgresConfiguration, logger: Logger) {
        self.handle = handle
        self.configuration = configuration
        self.logger = logger
        self.noticeSink = NoticeSink(logger: logger)
        // libpq prints notices (e.g. "relation … already exists, skipping") to stderr by default.
        PQsetNoticeReceiver(
            handle,
            { context, result in
                guard let context, let result else { return }
                let sink = Unmanaged<NoticeSink>.fromOpaque(context).takeUnretainedValue()
                sink.receive(result)
            },
            Unmanaged.passUnretained(noticeSink).toOpaque())
    }

    deinit {
        close()
    }

    /// Opens a connection, blocking until it is established or fails (bounded by `connect_timeout`).
    public static func connect(
        _ configuration: PostgresConfiguration,
        logger: Logger = Logger(label: "PostgresLibPQ")
    ) throws -> PostgresConnection {
        let keywords = configuration.connectionKeywords
        let keys = keywords.map { strdup($0.keyword) }
        let values = keywords.map { strdup($0.value) }
        defer {
            keys.forEach { free($0) }
            values.forEach { free($0) }
        }
        let keyPointers = keys.map { $0.map { UnsafePointer($0) } } + [nil]
        let valuePointers = values.map { $0.map { UnsafePointer($0) } } + [nil]
        let handle = keyPointers.withUnsafeBufferPointer { keyBuffer in
            valuePointers.withUnsafeBufferPointer { valueBuffer in
                PQconnectdbParams(keyBuffer.baseAddress, valueBuffer.baseAddress, 0)
            }
        }
        guard let handle else {
            throw PostgresError(.connectionFailed, message: "libpq could not allocate a connection")
        }
        guard PQstatus(handle) == CONNECTION_OK else {
            let message = Self.redactedErrorMessage(handle, configuration: configuration)
            PQfinish(handle)
            throw PostgresError(.connectionFailed, message: message)
        }
        let connection = PostgresConnection(handle: handle, configuration: configuration, logger: logger)
        logger.debug(
            "opened PostgreSQL connection",
            metadata: [
                "postgres.backend_pid": "\(connection.backendPID)",
                "postgres.host": "\(configuration.host ?? "default")",
                "postgres.database": "\(configuration.database ?? "default")",
            ])
        return connection
    }

    /// Closes the connection (`PQfinish`); safe to call more than once.
    public func close() {
        guard let handle else { return }
        let pid = PQbackendPID(handle)
        PQfinish(handle)
        self.handle = nil
        logger.debug("closed PostgreSQL connection", metadata: ["postgres.backend_pid": "\(pid)"])
    }

    /// Whether `close()` has been called.
    public var isClosed: Bool { handle == nil }

    /// Whether libpq considers the connection usable (`PQstatus == CONNECTION_OK`).
    ///
    /// libpq learns that the server went away only when it next reads; the pool additionally probes
    /// the socket before handing a connection out.
    public var isHealthy: Bool {
        guard let handle else { return false }
        return PQstatus(handle) == CONNECTION_OK
    }

    /// The server process serving this connection (for `pg_terminate_backend`, logs).
    public var backendPID: Int32 {
        guard let handle else { return 0 }
        return PQbackendPID(handle)
    }

    /// The server version as an integer, e.g. 150004 for 15.4.
    public var serverVersion: Int {
        guard let handle else { return 0 }
        return Int(PQserverVersion(handle))
    }

    /// The connection's transaction state as the server last reported it.
    public var transactionStatus: PostgresTransactionStatus {
        guard let handle else { return .unknown }
        if pendingBegin != nil { return .inTransaction }
        switch PQtransactionStatus(handle) {
        case PQTRANS_IDLE: return .idle
        case PQTRANS_ACTIVE: return .active
        case PQTRANS_INTRANS: return .inTransaction
        case PQTRANS_INERROR: return .inFailedTransaction
        default: return .unknown
        }
    }

    /// Runs one SQL statement with `$1…` parameters (`PQexecParams`, unnamed) and returns its materialized result.
    @discardableResult
    func query(text sql: String, _ values: [PostgresValue] = []) throws -> PostgresRows {
        let handle = try openHandle()
        roundTrips += 1
        let result = try ParameterArrays.with(values) { count, types, pointers, lengths, formats in
            PQexecParams(handle, sql, count, types, pointers, lengths, formats, 0)
        }
        return try consume(result, sql: sql, values: values)
    }

    /// Runs `query`, prepared once per connection (`.cached`, as `query(_:_:)` runs a `PostgresStatement`) or planned
    /// with its values on every run (`.eachRun`).
    @discardableResult
    public func query(_ query: PostgresQuery, planning: PostgresQuery.Planning = .cached) throws -> PostgresRows {
        switch planning {
        case .cached: try self.query(cached: PostgresStatement(query.sql), query.parameters)
        case .eachRun: try self.query(text: query.sql, query.parameters)
        }
    }

    /// Runs one statement through this connection's prepared-statement cache (prepared on first use).
    ///
    /// Saves the server re-planning hot statements. Falls back to an unnamed statement when the cache is
    /// full, and always unnamed when `configuration.transactionPooled`; a cached statement that the server lost
    /// or invalidated is prepared again on the next call.
    @discardableResult
    func query(cached statement: PostgresStatement, _ values: [PostgresValue]) throws -> PostgresRows {
        // Behind a transaction pooler a named statement may be missing from the next server connection.
        if configuration.transactionPooled { return try query(text: statement.sql, values) }
        let key = StatementCache.Key(sql: statement.sql, parameterTypes: values.map(\.dataType))
        do {
            return try executeCached(key, values: values)
        } catch let error as PostgresError where error.sqlState == .invalidSQLStatementName {
            // The server lost the statement (DISCARD ALL, DEALLOCATE): prepare it once more. Only outside a
            // transaction; inside one the failure has already aborted it.
            guard transactionStatus == .idle else { throw error }
            return try executeCached(key, values: values)
        }
    }

    private func executeCached(_ key: StatementCache.Key, values: [PostgresValue]) throws -> PostgresRows {
        let name: String
        if let cached = statementCache.name(for: key) {
            name = cached
        } else if let reserved = statementCache.reserveName(for: key) {
            try prepare(name: reserved, sql: key.sql, parameterTypes: key.parameterTypes)
            statementCache.insert(key, name: reserved)
            name = reserved
        } else {
            return try query(text: key.sql, values)
        }
        do {
            return try execute(prepared: name, values: values, sql: key.sql)
        } catch let error as PostgresError
            where error.sqlState == .featureNotSupported || error.sqlState == .invalidSQLStatementName
        {
            // "cached plan must not change result type" after a schema change, or a statement deallocated
            // behind our back: forget it so the next call prepares it afresh.
            statementCache.remove(key)
            throw error
        }
    }

    /// Prepares a named statement (`PQprepare`) for `queryPrepared(name:_:)`.
    public func prepare(name: String, sql: String, parameterTypes: [PostgresDataType] = []) throws {
        let handle = try openHandle()
        let oids = parameterTypes.map(\.rawValue)
        roundTrips += 1
        let result = oids.withUnsafeBufferPointer { types in
            PQprepare(handle, name, sql, Int32(oids.count), types.baseAddress)
        }
        _ = try consume(result, sql: sql, values: [])
    }

    /// Runs a statement prepared with `prepare(name:sql:)` (`PQexecPrepared`).
    @discardableResult
    public func queryPrepared(name: String, _ parameters: [any PostgresEncodable] = []) throws -> PostgresRows {
        try execute(prepared: name, values: parameters.map(\.postgresValue), sql: "EXECUTE \(name)")
    }

    /// Runs SQL that may hold several statements and no parameters (`PQexec`), e.g. a migration.
    ///
    /// Without explicit BEGIN/COMMIT the whole script runs as one implicit transaction.
    public func execute(script: String) throws {
        let handle = try openHandle()
        roundTrips += 1
        _ = try consume(PQexec(handle, script), sql: script, values: [])
    }

    /// Quotes an identifier (`"name"`, doubling inner quotes) for the few places SQL cannot take parameters.
    public static func quoteIdentifier(_ identifier: String) throws -> String {
        guard !identifier.isEmpty, !identifier.utf8.contains(0) else {
            throw PostgresError.invalidParameter("identifier is empty or contains a NUL byte")
        }
        return "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
    }

    // MARK: - Internals shared with COPY, LISTEN and the pool

    /// The libpq connection, with a transaction's pending BEGIN sent first (unless `sendingPendingBegin` is
    /// false: the caller sends it).
    func openHandle(sendingPendingBegin: Bool = true) throws -> OpaquePointer {
        guard let handle else {
            throw PostgresError(.connectionLost, message: "connection is closed")
        }
        guard !committedInBody else {
            throw PostgresError(
                .unexpectedResult, message: "a statement after the transaction's COMMIT was sent with its last batch")
        }
        if sendingPendingBegin, let begin = pendingBegin {
            pendingBegin = nil
            roundTrips += 1
            _ = try consume(PQexec(handle, begin), sql: begin, values: [])
        }
        return handle
    }

    private func execute(prepared name: String, values: [PostgresValue], sql: String) throws -> PostgresRows {
        let handle = try openHandle()
        roundTrips += 1
        let result = try ParameterArrays.with(values) { count, _, pointers, lengths, formats in
            PQexecPrepared(handle, name, count, pointers, lengths, formats, 0)
        }
        return try consume(result, sql: sql, values: values)
    }

    /// Turns a `PGresult` into rows or an error, clearing it in every case.
    func consume(_ result: OpaquePointer?, sql: String, values: [PostgresValue]) throws -> PostgresRows {
        guard let result else {
            throw connectionLevelError(sql: sql)
        }
        defer { PQclear(result) }
        let status = PQresultStatus(result)
        switch status {
        case PGRES_TUPLES_OK, PGRES_COMMAND_OK, PGRES_SINGLE_TUPLE:
            return Self.materialize(result)
        case PGRES_EMPTY_QUERY:
            return PostgresRows(storage: .empty, commandTag: "", rowsAffected: 0)
        case PGRES_COPY_IN, PGRES_COPY_OUT, PGRES_COPY_BOTH:
            abandonCopy(status)
            var error = PostgresError(
                .unexpectedResult, message: "COPY must go through copyIn(sql:rows:), not query or execute")
            error.query = sql
            throw error
        default:
            throw makeError(from: result, sql: sql, values: values)
        }
    }

    /// Builds a `PostgresError` from a failed result's diagnostic fields.
    func makeError(from result: OpaquePointer, sql: String?, values: [PostgresValue]) -> PostgresError {
        func field(_ code: Int32) -> String? {
            guard let pointer = PQresultErrorField(result, code) else { return nil }
            return String(cString: pointer)
        }
        let sqlState = field(SL_PG_DIAG_SQLSTATE).map(SQLState.init(rawValue:))
        let primary =
            field(SL_PG_DIAG_MESSAGE_PRIMARY)
            ?? String(cString: PQresultErrorMessage(result)).trimmingCharacters(in: .whitespacesAndNewlines)
        let secrets = values.compactMap(\.copyText) + configuration.secrets
        let kind: PostgresError.Kind = (sqlState == nil && !isHealthy) ? .connectionLost : .queryFailed
        var error = PostgresError(kind, message: SecretRedaction.redact(primary, secrets: secrets), sqlState: sqlState)
        error.unredactedMessage = primary
        error.detail = field(SL_PG_DIAG_MESSAGE_DETAIL)
        error.hint = field(SL_PG_DIAG_MESSAGE_HINT)
        error.constraintName = field(SL_PG_DIAG_CONSTRAINT_NAME)
        error.schemaName = field(SL_PG_DIAG_SCHEMA_NAME)
        error.tableName = field(SL_PG_DIAG_TABLE_NAME)
        error.columnName = field(SL_PG_DIAG_COLUMN_NAME)
        error.severity = field(SL_PG_DIAG_SEVERITY_NONLOCALIZED) ?? field(SL_PG_DIAG_SEVERITY)
        error.context = field(SL_PG_DIAG_CONTEXT)
        error.query = sql
        if transactionStatus == .inFailedTransaction, errorThatAbortedTransaction == nil {
            errorThatAbortedTransaction = error
        }
        return error
    }

    /// The error for a call that returned no result at all (the connection broke or could not send).
    func connectionLevelError(sql: String?) -> PostgresError {
        let message =
            handle.map { Self.redactedErrorMessage($0, configuration: configuration) } ?? "connection is closed"
        var error = PostgresError(isHealthy ? .queryFailed : .connectionLost, message: message)
        error.query = sql
        return error
    }

    /// Leaves a COPY state entered by mistake so the connection stays usable.
    private func abandonCopy(_ status: ExecStatusType) {
        guard let handle else { return }
        if status == PGRES_COPY_OUT || status == PGRES_COPY_BOTH {
            var buffer: UnsafeMutablePointer<CChar>?
            while PQgetCopyData(handle, &buffer, 0) > 0 {
                PQfreemem(buffer)
                buffer = nil
            }
        }
        if status == PGRES_COPY_IN || status == PGRES_COPY_BOTH {
            _ = PQputCopyEnd(handle, "COPY is not supported through query()")
        }
        while let result = PQgetResult(handle) {
            PQclear(result)
        }
    }

    /// Checks, without blocking, that the server has not closed the connection while it sat idle.
    ///
    /// A terminated backend sends an error and closes its socket; libpq only notices on its next read,
    /// so the socket is read here (`PQconsumeInput`) whenever it is readable.
    func probeIsAlive() -> Bool {
        guard let handle, PQstatus(handle) == CONNECTION_OK else { return false }
        let socket = PQsocket(handle)
        guard socket >= 0 else { return false }
        for _ in 0..<4 {
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, 0)
            if ready == 0 { break }
            if ready < 0 {
                if errno == EINTR { continue }
                return false
            }
            if PQconsumeInput(handle) == 0 || PQstatus(handle) != CONNECTION_OK {
                return false
            }
            _ = PQisBusy(handle)  // parses what arrived (notices, parameter status)
            drainNotifications()
        }
        return PQstatus(handle) == CONNECTION_OK
    }

    /// Drops notifications received on a pooled connection nobody listens on.
    private func drainNotifications() {
        guard let handle else { return }
        while let notification = PQnotifies(handle) {
            PQfreemem(notification)
        }
    }

    private static func redactedErrorMessage(_ handle: OpaquePointer, configuration: PostgresConfiguration)
        -> String
    {
        let raw = String(cString: PQerrorMessage(handle)).trimmingCharacters(in: .whitespacesAndNewlines)
        let message = SecretRedaction.redactConnectionStrings(
            SecretRedaction.redact(raw, secrets: configuration.secrets))
        return message.isEmpty ? "unknown libpq error" : message
    }

    private static func materialize(_ result: OpaquePointer) -> PostgresRows {
        let rowCount = Int(PQntuples(result))
        let columnCount = Int(PQnfields(result))
        var columns = [PostgresColumn]()
        columns.reserveCapacity(columnCount)
        for column in 0..<columnCount {
            let name = PQfname(result, Int32(column)).map { String(cString: $0) } ?? "?column?"
            columns.append(
                PostgresColumn(name: name, dataType: PostgresDataType(rawValue: PQftype(result, Int32(column)))))
        }
        let cellCount = rowCount * columnCount
        var totalBytes = 0
        for row in 0..<rowCount {
            for column in 0..<columnCount {
                totalBytes += Int(PQgetlength(result, Int32(row), Int32(column)))
            }
        }
        var buffer = [UInt8]()
        buffer.reserveCapacity(totalBytes)
        var starts = [Int]()
        starts.reserveCapacity(cellCount)
        var lengths = [Int32]()
        lengths.reserveCapacity(cellCount)
        for row in 0..<rowCount {
            for column in 0..<columnCount {
                starts.append(buffer.count)
                if PQgetisnull(result, Int32(row), Int32(column)) != 0 {
                    lengths.append(-1)
                    continue
                }
                let length = PQgetlength(result, Int32(row), Int32(column))
                if let value = PQgetvalue(result, Int32(row), Int32(column)), length > 0 {
                    let bytes = UnsafeRawBufferPointer(start: value, count: Int(length))
                    buffer.append(contentsOf: bytes)
                }
                lengths.append(length)
            }
        }
        let storage = ResultStorage(
            columns: columns, rowCount: rowCount, buffer: buffer, cellStarts: starts, cellLengths: lengths)
        let commandTag = PQcmdStatus(result).map { String(cString: $0) } ?? ""
        let affected = PQcmdTuples(result).map { Int(String(cString: $0)) ?? 0 } ?? 0
        return PostgresRows(storage: storage, commandTag: commandTag, rowsAffected: affected)
    }
}

// A PGconn must never be used from two threads at once; the pool enforces that by confining each
// connection to its own thread.
@available(*, unavailable)
extension PostgresConnection: Sendable {}

/// Server notices (`RAISE NOTICE`, "… skipping") routed to the logger instead of libpq's stderr printer.
private final class NoticeSink {
    let logger: Logger

    init(logger: Logger) {
        self.logger = logger
    }

    func receive(_ result: OpaquePointer) {
        guard logger.logLevel <= .trace else { return }
        let sqlState = PQresultErrorField(result, SL_PG_DIAG_SQLSTATE).map { String(cString: $0) } ?? ""
        let message = PQresultErrorField(result, SL_PG_DIAG_MESSAGE_PRIMARY).map { String(cString: $0) } ?? ""
        logger.trace(
            "PostgreSQL notice", metadata: ["postgres.sqlstate": "\(sqlState)", "postgres.message": "\(message)"])
    }
}

/// Lays parameters out as the C arrays `PQexecParams`/`PQexecPrepared` take, valid during `body`.
enum ParameterArrays {
    typealias Body<R> = (
        _ count: Int32,
        _ types: UnsafePointer<Oid>?,
        _ values: UnsafePointer<UnsafePointer<CChar>?>?,
        _ lengths: UnsafePointer<Int32>?,
        _ formats: UnsafePointer<Int32>?
    ) -> R

    static func with<R>(_ values: [PostgresValue], _ body: Body<R>) throws -> R {
        guard values.count <= Int(UInt16.max) else {
            throw PostgresError.invalidParameter("\(values.count) parameters; PostgreSQL accepts at most 65535")
        }
        var buffer = [UInt8]()
        buffer.reserveCapacity(256)
        var offsets = [Int]()
        offsets.reserveCapacity(values.count)
        var lengths = [Int32]()
        lengths.reserveCapacity(values.count)
        var formats = [Int32]()
        formats.reserveCapacity(values.count)
        var types = [Oid]()
        types.reserveCapacity(values.count)
        for (position, value) in values.enumerated() {
            types.append(value.dataType.rawValue)
            switch value.storage {
            case .null:
                offsets.append(-1)
                lengths.append(0)
                formats.append(0)
            case .text(let text):
                // Text parameters are NUL-terminated C strings: an inner NUL would silently cut the value.
                let start = buffer.count
                buffer.append(contentsOf: text.utf8)
                let length = buffer.count - start
                let hasNUL =
                    length > 0
                    && buffer.withUnsafeBytes { raw in
                        raw.baseAddress.map { memchr($0 + start, 0, length) != nil } ?? false
                    }
                guard !hasNUL else {
                    throw PostgresError.invalidParameter("parameter $\(position + 1) contains a NUL byte")
                }
                buffer.append(0)
                offsets.append(start)
                lengths.append(Int32(clamping: length))
                formats.append(0)
            case .binary(let bytes):
                guard bytes.count < Int(Int32.max) else {
                    throw PostgresError.invalidParameter("parameter $\(position + 1) is too large")
                }
                offsets.append(buffer.count)
                buffer.append(contentsOf: bytes)
                buffer.append(0)
                lengths.append(Int32(bytes.count))
                formats.append(1)
            }
        }
        buffer.append(0)  // never empty, so the base address exists
        return buffer.withUnsafeBytes { raw in
            let pointers: [UnsafePointer<CChar>?] = offsets.map { offset in
                guard offset >= 0, let base = raw.baseAddress else { return nil }
                return (base + offset).assumingMemoryBound(to: CChar.self)
            }
            return pointers.withUnsafeBufferPointer { pointerBuffer in
                types.withUnsafeBufferPointer { typeBuffer in
                    lengths.withUnsafeBufferPointer { lengthBuffer in
                        formats.withUnsafeBufferPointer { formatBuffer in
                            body(
                                Int32(values.count), typeBuffer.baseAddress, pointerBuffer.baseAddress,
                                lengthBuffer.baseAddress, formatBuffer.baseAddress)
                        }
                    }
                }
            }
        }
    }
}
