/// A result column: its name and type.
public struct PostgresColumn: Sendable, Hashable {
    /// The column name as the server reported it (an alias if the query gave one).
    public let name: String
    /// The column's type.
    public let dataType: PostgresDataType
}
