/// The transaction state of a connection, as the server last reported it.
public enum PostgresTransactionStatus: Sendable, Hashable {
    /// Not in a transaction block.
    case idle
    /// A command is running.
    case active
    /// Inside a healthy transaction block.
    case inTransaction
    /// Inside a transaction block that failed; only ROLLBACK is accepted.
    case inFailedTransaction
    /// The connection is broken or closed.
    case unknown
}
