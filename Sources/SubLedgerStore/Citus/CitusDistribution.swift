import PostgresLibPQ

/// Places the ledger's tables on a Citus cluster as each table's `citus: …` comment says
/// (`subledger migrate --distribute`): reference tables copied to every node, the rest distributed by their key
/// in one colocation group per key, the coordinator's own tables left where they are, and the schema's functions
/// propagated to the workers. The statements are `Resources/citus-distribute.sql`; it runs in one transaction and
/// is idempotent.
public enum CitusDistribution {
    /// Where one table lives after the distribution.
    public struct Placement: Sendable, Hashable {
        /// `distributed`, `reference`, or `local` (a Citus local table: on the coordinator only).
        public var kind: String
        public var table: String
        /// The distribution column of a distributed table.
        public var column: String?
        /// Tables of one colocation group keep the rows of one key on the same worker.
        public var colocationGroup: Int64
    }

    /// Refused: not a Citus coordinator, a table without a placement, a table placed otherwise, or Citus's own
    /// refusal of a step. Nothing was changed.
    public struct Refusal: Error, Sendable, CustomStringConvertible {
        public var message: String
        public var hint: String?
        public var description: String { hint.map { "\(message) (\($0))" } ?? message }
    }

    /// Distributes the tables of the schema on `pool`'s search path and returns where every table is.
    /// `shardCount`: the shards of each newly distributed table (Citus's `citus.shard_count`; its default is 32).
    public static func distribute(_ pool: PostgresPool, shardCount: Int? = nil) async throws -> [Placement] {
        if let shardCount {
            guard (1...64_000).contains(shardCount) else {
                throw Refusal(message: "the shard count must be 1...64000, not \(shardCount)", hint: nil)
            }
        }
        let script = String(decoding: PackageResources.citus_distribute_sql, as: UTF8.self)
        do {
            try await pool.withConnection { connection in
                // One session: the shard count is a session setting the script's create_distributed_table reads.
                if let shardCount { try connection.execute(script: "SET citus.shard_count = \(shardCount)") }
                defer { if shardCount != nil { _ = try? connection.execute(script: "RESET citus.shard_count") } }
                try connection.execute(script: script)
            }
        } catch let error as PostgresError where error.kind == .queryFailed {
            throw Refusal(message: error.message, hint: error.hint)
        }
        return try await placements(pool)
    }

    /// Where Citus holds each table of the schema now (empty on a plain PostgreSQL).
    public static func placements(_ pool: PostgresPool) async throws -> [Placement] {
        let hasCitus = try await pool.query("SELECT 1 FROM pg_extension WHERE extname = 'citus'").count > 0
        guard hasCitus else { return [] }
        let rows = try await pool.query(
            """
            SELECT CASE WHEN partmethod = 'h' THEN 'distributed' WHEN repmodel = 't' THEN 'reference' ELSE 'local' END,
                   c.relname::text,
                   CASE WHEN partmethod = 'h' THEN column_to_column_name(logicalrelid, partkey) END,
                   colocationid::bigint
            FROM pg_dist_partition d JOIN pg_class c ON c.oid = d.logicalrelid
            WHERE c.relnamespace = current_schema()::regnamespace
            ORDER BY 1, 4, 2
            """)
        return try rows.map { row in
            Placement(
                kind: try row.decode(String.self, at: 0), table: try row.decode(String.self, at: 1),
                column: try row.decode(String?.self, at: 2), colocationGroup: try row.decode(Int64.self, at: 3))
        }
    }
}
