/// What stands between SubLedger and PostgreSQL (`SUBLEDGER_DATABASE_POOLER`).
///
/// PgBouncer in transaction mode hands each transaction whichever server connection is free, so nothing may
/// outlive a transaction: named prepared statements, session settings, LISTEN, session advisory locks.
/// `pgbouncerTransaction` runs every statement unnamed, sends no session options (PgBouncer refuses them; the
/// server's defaults must match), and sends LISTEN and the migrator's session lock to a direct connection
/// (`SUBLEDGER_DIRECT_DATABASE_URL`) or refuses them. docs/guides/scale-out.md, "Connection poolers".
public enum DatabasePooler: String, Sendable, CaseIterable {
    /// A direct connection to PostgreSQL (or a pooler in session mode that passes startup options on).
    case none
    /// PgBouncer (or any pooler) with `pool_mode = transaction`.
    case pgbouncerTransaction = "pgbouncer-transaction"

    /// Parses the setting's text; `nil` for anything else.
    public init?(setting: String) {
        self.init(rawValue: setting.lowercased())
    }

    /// Whether server connections change between transactions.
    public var isTransactionPooled: Bool { self == .pgbouncerTransaction }
}
