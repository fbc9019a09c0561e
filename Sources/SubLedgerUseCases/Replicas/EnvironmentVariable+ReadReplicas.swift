extension EnvironmentVariable {
    /// libpq URL or conninfo of one or more hot standbys (multi-host syntax) that answer reads; unset: the
    /// primary answers every read.
    public static let readDatabaseURL = "SUBLEDGER_READ_DATABASE_URL"
    /// Milliseconds of measured replay lag above which a standby answers no read (default 1000).
    public static let readMaximumLag = "SUBLEDGER_READ_MAX_LAG_MS"
    /// Milliseconds a read presenting a consistency token waits for a standby to replay it (default 250).
    public static let readTokenWait = "SUBLEDGER_READ_TOKEN_WAIT_MS"
    /// Connections to each standby (default: the primary's pool size).
    public static let readPoolSize = "SUBLEDGER_READ_POOL_SIZE"
}
