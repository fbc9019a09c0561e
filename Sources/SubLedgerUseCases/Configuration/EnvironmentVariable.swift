/// The environment variables SubLedger reads, in one place.
public enum EnvironmentVariable {
    /// libpq URL or conninfo of the database; unset means the embedded cluster.
    public static let databaseURL = "DATABASE_URL"
    /// `none` (default) or `pgbouncer-transaction`: what stands between DATABASE_URL and PostgreSQL.
    public static let databasePooler = "SUBLEDGER_DATABASE_POOLER"
    /// A connection string that reaches PostgreSQL directly, for LISTEN and migrations behind a transaction pooler.
    public static let directDatabaseURL = "SUBLEDGER_DIRECT_DATABASE_URL"
    /// How many threads wait for the database sockets' replies (1 to 64; default one per 4 cores, at most 8).
    public static let readinessThreads = "SUBLEDGER_POSTGRES_READINESS_THREADS"
    public static let host = "SUBLEDGER_HOST"
    public static let port = "SUBLEDGER_PORT"
    public static let dataDirectory = "SUBLEDGER_DATA_DIR"
    public static let databasePoolSize = "SUBLEDGER_DB_POOL_SIZE"
    public static let logLevel = "SUBLEDGER_LOG_LEVEL"
    /// `text` (the default) or `json`: how the commands write their log.
    public static let logFormat = "SUBLEDGER_LOG_FORMAT"
    /// `off` (the default) or `otlp`: whether `serve` and `poll` export OpenTelemetry traces (the collector, the
    /// service name and the sampler come from the standard `OTEL_*` variables).
    public static let traces = "SUBLEDGER_TRACES"
    /// verifyReceipt production URL (default Apple's).
    public static let verifyReceiptURL = "SUBLEDGER_VERIFY_RECEIPT_URL"
    /// verifyReceipt sandbox URL (default Apple's).
    public static let verifyReceiptSandboxURL = "SUBLEDGER_VERIFY_RECEIPT_SANDBOX_URL"
    /// Comma-separated certificate files (DER or PEM) trusted besides Apple Root CA G3, e.g. appstore-sim's root.
    public static let extraRoots = "SUBLEDGER_APPLE_EXTRA_ROOTS"
    /// `false` to stop trusting Apple Root CA G3 (only for a deployment that talks to appstore-sim alone).
    public static let trustAppleRoot = "SUBLEDGER_TRUST_APPLE_ROOT"
    /// App Store Server API production base URL (default Apple's).
    public static let serverAPIURL = "SUBLEDGER_SERVER_API_URL"
    /// App Store Server API sandbox base URL (default Apple's).
    public static let serverAPISandboxURL = "SUBLEDGER_SERVER_API_SANDBOX_URL"
    /// A file of secret keys (base64, one per line, newest first) that seal the apps' secrets at rest.
    public static let secretKeyFile = "SUBLEDGER_SECRET_KEY_FILE"
    /// The secret keys themselves (base64, comma-separated, newest first), instead of a file.
    public static let secretKey = "SUBLEDGER_SECRET_KEY"
    /// Seconds one verification with Apple may take in all (default 30).
    public static let appleTimeout = "SUBLEDGER_APPLE_TIMEOUT_SECONDS"
    /// Seconds connecting to Apple may take (default 3).
    public static let appleConnectTimeout = "SUBLEDGER_APPLE_CONNECT_TIMEOUT_SECONDS"
    /// Connections per Apple host (default 64).
    public static let appleMaximumConnections = "SUBLEDGER_APPLE_MAX_CONNECTIONS"
    /// Consecutive Apple failures that open the circuit breaker; 0 turns it off (default 5).
    public static let appleBreakerThreshold = "SUBLEDGER_APPLE_BREAKER_FAILURES"
    /// Seconds the open circuit breaker refuses calls to Apple (default 30).
    public static let appleBreakerCooldown = "SUBLEDGER_APPLE_BREAKER_COOLDOWN_SECONDS"
    /// Seconds before the first retry of a stored input that failed (default 30; doubles per attempt).
    public static let retryBase = "SUBLEDGER_RETRY_BASE_SECONDS"
    /// Longest wait in seconds between retries of a stored input (default 21600, 6 hours).
    public static let retryMaximum = "SUBLEDGER_RETRY_MAX_SECONDS"
    /// Attempts before a stored input is quarantined (default 16).
    public static let retryMaximumAttempts = "SUBLEDGER_RETRY_MAX_ATTEMPTS"
    /// Seconds a `pending` stored input is left to its request before the renewal job takes it (default 120).
    public static let pendingAge = "SUBLEDGER_PENDING_AGE_SECONDS"
    /// `on` (default) or `off`: whether this `serve`/`poll` process delivers webhooks.
    public static let webhookDelivery = "SUBLEDGER_WEBHOOK_DELIVERY"
    /// Seconds a claimed webhook delivery stays leased (default 120).
    public static let webhookLeaseSeconds = "SUBLEDGER_WEBHOOK_LEASE_SECONDS"
}
