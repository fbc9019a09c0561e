/// A result column: its name and type.
public struct PostgresColumn: Sendable, Hashable {
    /// The column name as the server reported it (an alias if the query gave one).
    public let name: String
    /// The column's type.
    public let dataType: PostgresDataType
}

/// A fully materialized query result: rows, columns, and how many rows the command affected.
///
/// All values are copied out of libpq before its result is cleared, so this can cross tasks freely.
public struct PostgresRows: Sendable, RandomAccessCollection {
    let storage: ResultStorage
    /// The server's command tag, e.g. `INSERT 0 3` or `SELECT 2`.
    public let commandTag: String
    /// Rows inserted, updated, deleted, selected, copied or fetched, per the command tag (0 if none).
    public let rowsAffected: Int

    init(storage: ResultStorage, commandTag: String, rowsAffected: Int) {
        self.storage = storage
        self.commandTag = commandTag
        self.rowsAffected = rowsAffected
    }

    /// The result columns, in order.
    public var columns: [PostgresColumn] { storage.columns }

    /// The result column names, in order.
    public var columnNames: [String] { storage.columns.map(\.name) }

    public var startIndex: Int { 0 }
    public var endIndex: Int { storage.rowCount }

    public subscript(position: Int) -> PostgresRow {
        precondition(position >= 0 && position < storage.rowCount, "row index \(position) out of range")
        return PostgresRow(storage: storage, rowIndex: position)
    }

    /// The only row; throws a decoding error unless there is exactly one.
    public func single() throws -> PostgresRow {
        guard storage.rowCount == 1 else {
            throw PostgresError(.decoding, message: "expected exactly one row, got \(storage.rowCount)")
        }
        return PostgresRow(storage: storage, rowIndex: 0)
    }
}

/// One row of a `PostgresRows`, decoded by column index or name.
public struct PostgresRow: Sendable {
    let storage: ResultStorage
    let rowIndex: Int

    /// The result columns, in order.
    public var columns: [PostgresColumn] { storage.columns }

    /// Number of columns.
    public var count: Int { storage.columns.count }

    /// The raw cell at a column index; throws if the index is out of range.
    public func cell(at index: Int) throws -> PostgresCell {
        guard index >= 0, index < storage.columns.count else {
            throw PostgresError(
                .decoding, message: "column index \(index) out of range (row has \(storage.columns.count) columns)")
        }
        return storage.cell(row: rowIndex, column: index)
    }

    /// The raw cell of a named column; throws if no column has that name.
    public func cell(named name: String) throws -> PostgresCell {
        guard let index = storage.columnIndexByName[name] else {
            var error = PostgresError(.decoding, message: "no column named \"\(name)\"")
            error.columnName = name
            throw error
        }
        return storage.cell(row: rowIndex, column: index)
    }

    /// Whether the value at a column index is NULL.
    public func isNull(at index: Int) throws -> Bool {
        try cell(at: index).bytes == nil
    }

    /// Decodes the value at a column index; NULL decodes only into an Optional.
    public func decode<T: PostgresDecodable>(_ type: T.Type = T.self, at index: Int) throws -> T {
        try T.decode(from: cell(at: index))
    }

    /// Decodes the value of a named column; NULL decodes only into an Optional.
    public func decode<T: PostgresDecodable>(_ type: T.Type = T.self, column name: String) throws -> T {
        try T.decode(from: cell(named: name))
    }

    /// Decodes the leading columns into a tuple: `let (id, name) = try row.decode((Int64, String).self)`.
    public func decode<each T: PostgresDecodable>(_ types: (repeat each T).Type) throws -> (repeat each T) {
        var index = 0
        func next<U: PostgresDecodable>(_: U.Type) throws -> U {
            defer { index += 1 }
            return try decode(U.self, at: index)
        }
        return (repeat try next((each T).self))
    }
}

/// One raw column value of a row, in PostgreSQL's text format; `bytes` is nil for NULL.
public struct PostgresCell: Sendable {
    /// The column's name.
    public let columnName: String
    /// The column's position in the row.
    public let columnIndex: Int
    /// The column's type.
    public let dataType: PostgresDataType
    /// The value's text-format bytes, or nil for SQL NULL.
    public let bytes: ArraySlice<UInt8>?

    /// A decoding error that names this cell's column.
    public func decodingError(_ problem: String) -> PostgresError {
        .decoding(column: columnName, index: columnIndex, problem)
    }

    /// The bytes of a non-NULL value; throws a decoding error naming the column for NULL.
    public func requireBytes<T>(decoding type: T.Type) throws -> ArraySlice<UInt8> {
        guard let bytes else {
            throw decodingError("is NULL; decode \(T.self)? to accept NULL")
        }
        return bytes
    }

    /// Throws unless the column's type is one of `accepted`.
    public func requireType<T>(_ accepted: PostgresDataType..., decoding type: T.Type) throws {
        guard accepted.contains(dataType) else {
            throw decodingError("cannot decode \(dataType) as \(T.self)")
        }
    }
}

/// The values of a result, copied out of a `PGresult` into one buffer.
final class ResultStorage: Sendable {
    let columns: [PostgresColumn]
    let columnIndexByName: [String: Int]
    let rowCount: Int
    let buffer: [UInt8]
    /// Start offset in `buffer` of each cell, row-major.
    let cellStarts: [Int]
    /// Byte length of each cell, or -1 for NULL.
    let cellLengths: [Int32]

    init(columns: [PostgresColumn], rowCount: Int, buffer: [UInt8], cellStarts: [Int], cellLengths: [Int32]) {
        self.columns = columns
        var indexByName = [String: Int]()
        for (index, column) in columns.enumerated() where indexByName[column.name] == nil {
            indexByName[column.name] = index
        }
        self.columnIndexByName = indexByName
        self.rowCount = rowCount
        self.buffer = buffer
        self.cellStarts = cellStarts
        self.cellLengths = cellLengths
    }

    static let empty = ResultStorage(columns: [], rowCount: 0, buffer: [], cellStarts: [], cellLengths: [])

    func cell(row: Int, column: Int) -> PostgresCell {
        let slot = row * columns.count + column
        let length = cellLengths[slot]
        let bytes: ArraySlice<UInt8>? =
            length < 0 ? nil : buffer[cellStarts[slot]..<(cellStarts[slot] + Int(length))]
        return PostgresCell(
            columnName: columns[column].name, columnIndex: column, dataType: columns[column].dataType, bytes: bytes)
    }
}
