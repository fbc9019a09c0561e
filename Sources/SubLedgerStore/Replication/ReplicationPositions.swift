import PostgresLibPQ

/// Where the primary's write-ahead log is and how far a hot standby has replayed it: the two readings the
/// replica lag monitor and the consistency tokens are made of (docs/guides/scale-out.md, "Read replicas").
public enum ReplicationPositions {
    /// What a server that should be a hot standby says about itself.
    public struct Standby: Sendable, Hashable {
        /// `false`: not a standby (promoted, or a primary named by mistake); never read from it.
        public var inRecovery: Bool
        /// The end of the last record replayed; `nil` when it is not a standby.
        public var replayed: WALPosition?

        public init(inRecovery: Bool, replayed: WALPosition?) {
            self.inRecovery = inRecovery
            self.replayed = replayed
        }
    }

    /// The primary's insert position: after a commit returns, at or past the commit's record, so it is what a
    /// standby must have replayed to show that commit (even with `synchronous_commit = off`, where the write
    /// position may still be behind it).
    public static func primary(on pool: PostgresPool) async throws -> WALPosition {
        let rows = try await pool.query(primaryStatement)
        return try position(try rows.single().decode(String.self, at: 0))
    }

    /// Whether the server behind `pool` is in recovery, and how far it has replayed.
    public static func standby(on pool: PostgresPool) async throws -> Standby {
        let row = try await pool.query(standbyStatement).single()
        let inRecovery = try row.decode(Bool.self, at: 0)
        let replayed = try row.decode(String?.self, at: 1).map(position)
        return Standby(inRecovery: inRecovery, replayed: inRecovery ? replayed : nil)
    }

    private static func position(_ text: String) throws -> WALPosition {
        guard let position = WALPosition(text: text) else {
            throw StoreError(code: .corruptRow, message: "the server reported an unreadable WAL position")
        }
        return position
    }

    static let primaryStatement: PostgresQuery = "SELECT pg_current_wal_insert_lsn()::text"
    static let standbyStatement: PostgresQuery = "SELECT pg_is_in_recovery(), pg_last_wal_replay_lsn()::text"
}
