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
