import PostgresLibPQ

/// The checkpoint of `subledger import`: one `import_runs` row per CSV file (found again by the file's
/// SHA-256), and one `import_rows` row per finished or failed line, so a run resumes where it stopped.
public struct ImportCheckpointStore: Sendable {
    public let pool: PostgresPool

    public init(pool: PostgresPool) {
        self.pool = pool
    }

    /// What a line ended as.
    public enum RowStatus: String, Sendable, Hashable {
        /// Applied: a re-run skips it.
        case done
        /// Failed with a reason: a re-run tries it again.
        case failed
    }

    /// An import run as stored.
    public struct Run: Sendable, Hashable {
        public var runID: Int64
        public var fileDigest: String
        public var totalRows: Int
        public var finished: Bool
    }

    /// What the checkpoint says of one line.
    public struct RowRecord: Sendable, Hashable {
        public var lineNumber: Int
        public var status: RowStatus
        public var transactions: Int
        public var reason: String?
    }

    /// The run of the file with `fileDigest` (lowercase hex SHA-256), or `nil` when it never started.
    public func run(fileDigest: String) async throws -> Run? {
        let rows = try await pool.query(
            """
            SELECT import_run_id, file_digest, total_rows, finished_at IS NOT NULL
            FROM import_runs WHERE file_digest = \(fileDigest)
            """)
        guard let row = rows.first else { return nil }
        return Run(
            runID: try row.decode(Int64.self, at: 0), fileDigest: try row.decode(String.self, at: 1),
            totalRows: Int(try row.decode(Int64.self, at: 2)), finished: try row.decode(Bool.self, at: 3))
    }

    /// The run of the file, created if it never started. Two processes importing the same file share it.
    public func startRun(fileDigest: String, fileName: String, totalRows: Int) async throws -> Run {
        let rows = try await pool.query(
            """
            INSERT INTO import_runs (file_digest, file_name, total_rows) VALUES (\(fileDigest),
                \(String(fileName.prefix(1024))), \(Int64(totalRows)))
            ON CONFLICT (file_digest) DO UPDATE SET finished_at = NULL
            RETURNING import_run_id, file_digest, total_rows, false
            """)
        let row = try rows.single()
        return Run(
            runID: try row.decode(Int64.self, at: 0), fileDigest: try row.decode(String.self, at: 1),
            totalRows: Int(try row.decode(Int64.self, at: 2)), finished: false)
    }

    /// Every line the run has recorded, by line number.
    public func rows(of runID: Int64) async throws -> [Int: RowRecord] {
        let rows = try await pool.query(
            "SELECT line_number, status, transactions, reason FROM import_rows WHERE import_run_id = \(runID)")
        var records: [Int: RowRecord] = [:]
        for row in rows {
            let line = Int(try row.decode(Int64.self, at: 0))
            records[line] = RowRecord(
                lineNumber: line, status: RowStatus(rawValue: try row.decode(String.self, at: 1)) ?? .failed,
                transactions: Int(try row.decode(Int64.self, at: 2)), reason: try row.decode(String?.self, at: 3))
        }
        return records
    }

    /// Records what line `lineNumber` ended as; a later record of the same line replaces it.
    public func record(
        runID: Int64, lineNumber: Int, status: RowStatus, accountID: String, chainID: String?,
        transactions: Int, reason: String?
    ) async throws {
        try await pool.query(
            """
            INSERT INTO import_rows
                (import_run_id, line_number, status, account_id, original_transaction_id, transactions, reason)
            VALUES (\(runID), \(Int64(lineNumber)), \(status.rawValue), \(accountID), \(chainID),
                \(Int64(transactions)), \(reason.map { String($0.prefix(1000)) }))
            ON CONFLICT (import_run_id, line_number) DO UPDATE SET
                status = EXCLUDED.status, original_transaction_id = EXCLUDED.original_transaction_id,
                transactions = EXCLUDED.transactions, reason = EXCLUDED.reason, updated_at = EXCLUDED.updated_at
            """)
    }

    /// Marks the run finished (every line done or failed).
    public func finish(runID: Int64) async throws {
        try await pool.query("UPDATE import_runs SET finished_at = now() WHERE import_run_id = \(runID)")
    }
}
