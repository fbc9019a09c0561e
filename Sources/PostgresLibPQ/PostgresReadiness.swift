import Synchronization

/// The process's readiness threads, as far as a caller may choose them.
public enum PostgresReadiness {
    private static let requested = Mutex<Int?>(nil)

    /// The most threads `setThreadCount` accepts.
    public static let maximumThreadCount = 64

    /// How many threads wait for the process's libpq sockets (`SocketReadiness`), instead of one per 4 cores
    /// (at least 1, at most 8), kept within 1...`maximumThreadCount`. Takes effect only before the first pool
    /// opens a connection: call it at start.
    public static func setThreadCount(_ count: Int) {
        let kept = kept(count)
        requested.withLock { $0 = kept }
    }

    /// `count` within 1...`maximumThreadCount`.
    static func kept(_ count: Int) -> Int {
        min(max(count, 1), maximumThreadCount)
    }

    static var requestedThreadCount: Int? { requested.withLock { $0 } }
}
