/// A snapshot of a pool's state: gauges (open, in use, idle, waiters) and lifetime counters.
public struct PostgresPoolStatistics: Sendable, Hashable {
    /// The configured bound on connections.
    public var maxConnections: Int
    /// Connections currently open to the server.
    public var openConnections: Int
    /// Connections currently lent to a unit of work.
    public var inUse: Int
    /// Connections ready for reuse.
    public var idle: Int
    /// Tasks waiting for a connection.
    public var waiters: Int
    /// Connections opened since the pool started.
    public var connectionsOpened: Int
    /// Connections closed since the pool started.
    public var connectionsClosed: Int
    /// Connections found dead and replaced since the pool started.
    public var connectionsReplaced: Int
}
