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
