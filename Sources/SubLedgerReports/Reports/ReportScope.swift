import PostgresLibPQ

/// Which part of the ledger a report reads: one app (by bundle id) or all, one environment or all.
public struct ReportScope: Sendable, Hashable, Codable {
    /// The app's bundle id; `nil` reports on every app.
    public var bundleID: String?
    /// `Production`, `Sandbox`, ...; `nil` reports on every environment.
    public var environment: String?

    public init(bundleID: String? = nil, environment: String? = nil) {
        self.bundleID = bundleID
        self.environment = environment
    }

    /// Every app and environment.
    public static let everything = ReportScope()

    /// The scope's apps as a CTE named `scope (app_id, bundle_id)`, filtered by the parameter `$1`.
    ///
    /// Statements built on it take the bundle id as `$1` and the environment as `$2`; a NULL parameter
    /// folds away when PostgreSQL plans the statement with its values, so the indexes still apply.
    static let appsCTE = "scope AS (SELECT app_id, bundle_id FROM apps WHERE $1::text IS NULL OR bundle_id = $1::text)"

    /// The SQL condition that keeps rows of the scope's environment (`$2`), on a column.
    static func environmentCondition(_ column: String) -> String {
        "($2::text IS NULL OR \(column) = $2::text)"
    }

    /// The first two parameters of every scoped statement.
    var parameters: [any PostgresEncodable] { [bundleID, environment] }

    /// Throws `ReportError.unknownApp` when a bundle id is given that no app has.
    func validate(on connection: PostgresConnection) throws {
        guard let bundleID else { return }
        if try connection.query("SELECT 1 FROM apps WHERE bundle_id = $1", [bundleID]).isEmpty {
            throw ReportError.unknownApp(bundleID)
        }
    }
}
