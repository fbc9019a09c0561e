import Synchronization

/// The process's readiness threads, as far as a caller may choose them.
public enum PostgresReadiness {
    private static let requested = Mutex<Int?>(nil)

    /// The most threads `setThreadCount` accepts.
    public static let maximumThreadCount = 64

    /// How many threads wait for the process's libpq sockets (`SocketReadiness`), instead of one per 4 cores
    /// (at least 1, at most 8). Takes effect only before the first pool opens a connection: call it at start.
    public static func setThreadCount(_ count: Int) {
        precondition((1...maximumThreadCount).contains(count), "readiness threads out of range")
        requested.withLock { $0 = count }
    }

    static var requestedThreadCount: Int? { requested.withLock { $0 } }
}
