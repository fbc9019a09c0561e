import PostgresLibPQ

/// The end-of-world erasure invariant every store's simulation holds: no row of any table of the database holds an
/// erased id, in any letter case (the audit log, webhook events of any account, ledger keys and reasons included).
enum SimulationErasureCheck {
    /// The first erased id still found in a row, with the table and the row's start; nil when none is left.
    static func erasedIDLeft(_ erased: Set<String>, in pool: PostgresPool) async throws -> String? {
        guard !erased.isEmpty else { return nil }
        let tables = try await pool.query(
            """
            SELECT quote_ident(table_name) FROM information_schema.tables
            WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'
            """
        ).map { try $0.decode(String.self, at: 0) }
        for id in erased.sorted() {
            for table in tables {
                let from = PostgresQuery(unsafeSQL: "\(table) t")
                let rows = try await pool.query(
                    "SELECT left(t::text, 600) FROM \(from) WHERE strpos(lower(t::text), \(id.lowercased())) > 0")
                if let first = rows.first {
                    return "erased \(id) is still in \(rows.count) row(s) of \(table), e.g. "
                        + (try first.decode(String.self, at: 0))
                }
            }
        }
        return nil
    }
}
