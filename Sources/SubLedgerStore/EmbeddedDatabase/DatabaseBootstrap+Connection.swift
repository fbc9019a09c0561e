import PostgresLibPQ

extension DatabaseBootstrap.Opened {
    /// Opens a connection and runs the simplest statement, so that a caller timing its own queries does not
    /// count the connection's start.
    public func checkConnection() async throws {
        try await pool.query("SELECT 1")
    }
}
