import PostgresLibPQ

/// The reports' reads: every SQL statement of the reports, one named function per query, each returning
/// typed rows. The report types (`Reports.summary`, ...) compute totals and format from those rows and hold
/// no SQL; the ledger's writes stay in `SubLedgerStore.LedgerStore`.
///
/// A store reads one `ReportScope`. Every scoped statement takes the bundle id as `$1` and the environment
/// as `$2` (see `appsCTE`); a NULL parameter folds away when PostgreSQL plans the statement with its values,
/// so the indexes still apply. The statements only read, on the one connection the report runs on.
struct ReportStore {
    let connection: PostgresConnection
    let scope: ReportScope

    /// A store on `connection` for `scope`; throws `ReportError.unknownApp` when the scope names a bundle id
    /// that no app has.
    init(on connection: PostgresConnection, scope: ReportScope) throws {
        self.connection = connection
        self.scope = scope
        if let bundleID = scope.bundleID,
            try connection.query("SELECT 1 FROM apps WHERE bundle_id = $1", [bundleID]).isEmpty
        {
            throw ReportError.unknownApp(bundleID)
        }
    }

    /// Runs a scoped statement: the scope's bundle id and environment as `$1` and `$2`, then `parameters`.
    func scoped(_ sql: String, _ parameters: [any PostgresEncodable] = []) throws -> PostgresRows {
        let scopeParameters: [any PostgresEncodable] = [scope.bundleID, scope.environment]
        return try connection.query(sql, scopeParameters + parameters)
    }

    /// The scope's apps as a CTE named `scope (app_id, bundle_id)`, filtered by the parameter `$1`.
    static let appsCTE = "scope AS (SELECT app_id, bundle_id FROM apps WHERE $1::text IS NULL OR bundle_id = $1::text)"

    /// The SQL condition that keeps rows of the scope's environment (`$2`), on a column.
    static func environmentCondition(_ column: String) -> String {
        "($2::text IS NULL OR \(column) = $2::text)"
    }
}
