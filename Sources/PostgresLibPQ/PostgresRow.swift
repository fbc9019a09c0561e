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
