/// Statements to run one after the other in one round trip (`PostgresConnection.pipeline(_:)`).
///
/// Every statement's parameters are known before the batch is sent, so a statement cannot use an earlier one's
/// result; the server still runs them in the order they were appended, each seeing what the earlier ones wrote.
public struct PostgresBatch: Sendable {
    struct Item: Sendable {
        let statement: PostgresStatement
        let values: [PostgresValue]
    }

    private(set) var items: [Item] = []

    /// An empty batch.
    public init() {}

    /// How many statements the batch holds.
    public var count: Int { items.count }

    /// Whether the batch holds no statement.
    public var isEmpty: Bool { items.isEmpty }

    /// Appends `query` (run through the connection's prepared-statement cache) and returns its position: the index
    /// of its rows in what `pipeline(_:)` returns.
    @discardableResult
    public mutating func append(_ query: PostgresQuery) -> Int {
        items.append(Item(statement: PostgresStatement(query.sql), values: query.parameters))
        return items.count - 1
    }

    /// Appends every statement of `other` and returns their positions.
    @discardableResult
    public mutating func append(contentsOf other: PostgresBatch) -> Range<Int> {
        let start = items.count
        items.append(contentsOf: other.items)
        return start..<items.count
    }
}
