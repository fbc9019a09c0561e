import PostgresLibPQ

extension DatabasePooler {
    /// Checks that the connection `pool` makes is what this setting says, before a process serves anything.
    ///
    /// A pooler shows itself in two ways: PgBouncer refuses the startup `options` SubLedger sends on a direct
    /// connection, and the backend process id libpq was given at connect time (PgBouncer's own cancel key) is
    /// not the one the server reports. Behind a transaction pooler the server's defaults must give ISO dates
    /// and hex bytea, since they cannot be set per session. Connection failures other than the refusal are
    /// rethrown as they are (the database may simply be down).
    public func check(_ pool: PostgresPool) async throws {
        let facts: (announced: Int32, server: Int32, dateStyle: String, byteaOutput: String)
        do {
            facts = try await pool.withConnection { connection in
                let row = try connection.query(
                    "SELECT pg_backend_pid(), current_setting('DateStyle'), current_setting('bytea_output')"
                ).first
                return (
                    connection.backendPID, try row?.decode(Int32.self, at: 0) ?? 0,
                    try row?.decode(String.self, at: 1) ?? "", try row?.decode(String.self, at: 2) ?? ""
                )
            }
        } catch let error as PostgresError
            where error.isConnectionError && error.message.contains("unsupported startup parameter")
        {
            throw DatabasePoolerError(
                .undeclaredPooler,
                "the database URL leads to a connection pooler that refuses session options (PgBouncer): set "
                    + "SUBLEDGER_DATABASE_POOLER=pgbouncer-transaction "
                    + "(docs/guides/scale-out.md, \"Connection poolers\")"
            )
        }
        switch self {
        case .none:
            guard facts.announced == facts.server else {
                throw DatabasePoolerError(
                    .undeclaredPooler,
                    "the database URL leads through a connection pooler (the server's backend process is not the "
                        + "one announced at connect time): set SUBLEDGER_DATABASE_POOLER=pgbouncer-transaction "
                        + "(docs/guides/scale-out.md, \"Connection poolers\")")
            }
        case .pgbouncerTransaction:
            guard facts.dateStyle.hasPrefix("ISO"), facts.byteaOutput == "hex" else {
                throw DatabasePoolerError(
                    .sessionDefaults,
                    "behind a transaction pooler SubLedger cannot set its session, so the database's defaults "
                        + "must be DateStyle ISO and bytea_output hex (they are '\(facts.dateStyle)' and "
                        + "'\(facts.byteaOutput)'): ALTER DATABASE ... SET DateStyle = 'ISO, MDY'; "
                        + "ALTER DATABASE ... SET bytea_output = 'hex'")
            }
        }
    }
}
