import PostgresLibPQ
import SubLedgerCore

/// The reports' reads: every SQL statement of the reports, one named function per query, each returning
/// typed rows. The report types (`Reports.summary`, ...) compute totals and format from those rows and hold
/// no SQL; the ledger's writes stay in `SubLedgerStore.LedgerStore`.
///
/// A store reads one `ReportScope`. Every statement is a `PostgresQuery`: its values are bound parameters, and the
/// scope's bundle id and environment are bound by the fragments that filter on them (`apps`, `inEnvironment`).
/// Statements are planned with their values on every run (`.eachRun`), so a NULL filter (every app, every
/// environment) folds away and the indexes still apply. The statements only read, on the one connection the
/// report runs on.
struct ReportStore {
    let connection: PostgresConnection
    let scope: ReportScope

    /// A store on `connection` for `scope`; throws `ReportError.unknownApp` when the scope names a bundle id
    /// that no app has.
    init(on connection: PostgresConnection, scope: ReportScope) throws {
        self.connection = connection
        self.scope = scope
        if let bundleID = scope.bundleID,
            try connection.query("SELECT 1 FROM apps WHERE bundle_id = \(bundleID)" as PostgresQuery).isEmpty
        {
            throw ReportError.unknownApp(bundleID)
        }
    }

    /// Runs one of the store's statements, planned with its values.
    func run(_ query: PostgresQuery) throws -> PostgresRows {
        try connection.query(query, planning: .eachRun)
    }

    /// The scope's apps as a CTE named `scope (app_id, bundle_id)`.
    var apps: PostgresQuery {
        "scope AS (SELECT app_id, bundle_id FROM apps WHERE \(scope.bundleID)::text IS NULL OR bundle_id = \(scope.bundleID)::text)"
    }

    /// The condition that keeps rows of the scope's environment, on `column`.
    func inEnvironment(_ column: PostgresQuery) -> PostgresQuery {
        "(\(scope.environment)::text IS NULL OR \(column) = \(scope.environment)::text)"
    }

    /// `column` (a transaction's `source`) is that of a sale stating its own fee, tax and partial refunds, a web
    /// store's (`TransactionSource.statingFees`).
    func statesFees(_ column: PostgresQuery) -> PostgresQuery {
        let sources = TransactionSource.statingFees.map(\.rawValue).joined(separator: ",")
        return "\(column) = ANY (string_to_array(\(sources)::text, ','))"
    }
}
