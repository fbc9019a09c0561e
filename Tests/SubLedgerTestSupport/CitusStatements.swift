import PostgresLibPQ

/// Which shards the statements of some work reached on the Citus cluster of `scripts/citus-test`, from Citus's own
/// record of each statement (`citus_stat_statements`: the partition key it routed by, none when the statement ran
/// on every shard). A statement counts when its calls grew while the work ran.
public enum CitusStatements {
    /// The statements on hash-distributed tables that `work` sent: those routed to one shard (by a partition key),
    /// and the first 200 characters of those run on every shard. `distributed` lists the distributed tables, for
    /// the caller to check that the ones it expects are.
    public static func recorded(
        on pool: PostgresPool, during work: () async throws -> Void
    ) async throws -> (routed: [String], everyShard: [String], distributed: [String]) {
        // Citus reads its record through pg_stat_statements (preloaded on the coordinator by
        // scripts/citus-cluster); the extension's objects are needed in this database, on the coordinator only.
        try await pool.execute(
            script: """
                SET citus.enable_ddl_propagation = off;
                CREATE EXTENSION IF NOT EXISTS pg_stat_statements;
                RESET citus.enable_ddl_propagation;
                """)
        // Every statement of this database Citus recorded, by statement and partition key, with its calls.
        let recorded: PostgresQuery = """
            SELECT queryid::text || '/' || coalesce(partition_key, ''), calls, query, partition_key
            FROM citus_stat_statements
            WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
            """
        var before: [String: Int64] = [:]
        for row in try await pool.query(recorded) {
            before[try row.decode(String.self, at: 0)] = try row.decode(Int64.self, at: 1)
        }
        try await work()

        let distributed = try await pool.query(
            """
            SELECT c.relname::text FROM pg_dist_partition d JOIN pg_class c ON c.oid = d.logicalrelid
            WHERE d.partmethod = 'h'
            """
        ).map { try $0.decode(String.self, at: 0) }
        var routed: [String] = []
        var everyShard: [String] = []
        for row in try await pool.query(recorded) {
            let key = try row.decode(String.self, at: 0)
            guard try row.decode(Int64.self, at: 1) > before[key] ?? 0 else { continue }
            let query = try row.decode(String.self, at: 2)
            guard distributed.contains(where: words(of: query).contains) else { continue }
            if try row.decode(String?.self, at: 3) == nil {
                everyShard.append(String(query.prefix(200)))
            } else {
                routed.append(query)
            }
        }
        return (routed, everyShard, distributed)
    }

    /// The identifiers of `query`: the table names it may name.
    public static func words(of query: String) -> Set<String> {
        Set(query.split { !($0.isLetter || $0.isNumber || $0 == "_") }.map(String.init))
    }
}
