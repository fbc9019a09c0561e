import PostgresLibPQ

/// What every list report reads: at most `limit` rows, totals counted over every row the report covers, and
/// whether the rows were cut at the limit.
struct ReportListing<Row, Total> {
    var rows: [Row]
    var totals: [Total]
    var truncated: Bool

    /// Opens the store for `scope` (checking the app) and reads the rows and the totals; `count` says how many
    /// rows one total stands for.
    init(
        on connection: PostgresConnection, scope: ReportScope, rows: (ReportStore) throws -> [Row],
        totals: (ReportStore) throws -> [Total], count: (Total) -> Int
    ) throws {
        let store = try ReportStore(on: connection, scope: scope)
        self.rows = try rows(store)
        self.totals = try totals(store)
        truncated = self.totals.reduce(0) { $0 + count($1) } > self.rows.count
    }
}
