import CLibPQ

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A message delivered by `NOTIFY` / `pg_notify` to a channel this client LISTENs on.
public struct PostgresNotification: Sendable, Hashable {
    /// The channel name, exactly as given to `pg_notify` (case-sensitive).
    public let channel: String
    /// The payload text (empty if none was sent).
    public let payload: String
    /// The server process that sent the notification.
    public let backendPID: Int32

    /// Creates a notification value (for tests and fakes).
    public init(channel: String, payload: String, backendPID: Int32) {
        self.channel = channel
        self.payload = payload
        self.backendPID = backendPID
    }
}

extension PostgresConnection {
    /// Longest channel name PostgreSQL keeps (NAMEDATALEN - 1 bytes); longer ones are refused, not truncated.
    static let maximumChannelLength = 63

    /// Starts listening on a channel (`LISTEN "channel"`; the name is quoted, not parameterised).
    public func listen(channel: String) throws {
        try query(text: "LISTEN \(try Self.quotedChannel(channel))")
    }

    /// Stops listening on a channel.
    public func unlisten(channel: String) throws {
        try query(text: "UNLISTEN \(try Self.quotedChannel(channel))")
    }

    /// Sends a notification (`SELECT pg_notify($1, $2)`); delivered when the current transaction commits.
    public func notify(channel: String, payload: String) throws {
        _ = try Self.quotedChannel(channel)
        try query("SELECT pg_notify(\(channel), \(payload))")
    }

    /// Returns the notifications that arrive within `timeout` (at least one, or none on timeout).
    ///
    /// Waits on the socket with `poll(2)`, so it blocks this thread: call it only on a dedicated one.
    /// Throws `.connectionLost` when the server goes away.
    public func waitForNotifications(timeout: Duration) throws -> [PostgresNotification] {
        let handle = try openHandle()
        var received = takeNotifications(handle)
        guard received.isEmpty else { return received }
        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: timeout)
        while true {
            let socket = PQsocket(handle)
            guard socket >= 0 else {
                throw PostgresError(.connectionLost, message: "connection has no socket")
            }
            let remaining = clock.now.duration(to: deadline)
            let milliseconds = max(0, Self.milliseconds(remaining))
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, Int32(clamping: milliseconds))
            if ready < 0 {
                if errno == EINTR { continue }
                throw PostgresError(.connectionLost, message: "poll failed with errno \(errno)")
            }
            if ready > 0 {
                guard PQconsumeInput(handle) == 1 else {
                    throw connectionLevelError(sql: nil).asConnectionLost()
                }
                received = takeNotifications(handle)
                if !received.isEmpty { return received }
                guard PQstatus(handle) == CONNECTION_OK else {
                    throw connectionLevelError(sql: nil).asConnectionLost()
                }
            }
            if clock.now >= deadline { return [] }
        }
    }

    private func takeNotifications(_ handle: OpaquePointer) -> [PostgresNotification] {
        var notifications = [PostgresNotification]()
        while let notify = PQnotifies(handle) {
            defer { PQfreemem(notify) }
            let channel = notify.pointee.relname.map { String(cString: $0) } ?? ""
            let payload = notify.pointee.extra.map { String(cString: $0) } ?? ""
            notifications.append(
                PostgresNotification(channel: channel, payload: payload, backendPID: notify.pointee.be_pid))
        }
        return notifications
    }

    static func quotedChannel(_ channel: String) throws -> String {
        guard channel.utf8.count <= maximumChannelLength else {
            throw PostgresError.invalidParameter("channel name longer than \(maximumChannelLength) bytes")
        }
        return try quoteIdentifier(channel)
    }

    private static func milliseconds(_ duration: Duration) -> Int64 {
        let (seconds, attoseconds) = duration.components
        let (scaled, overflow) = seconds.multipliedReportingOverflow(by: 1_000)
        if overflow { return seconds < 0 ? 0 : Int64(Int32.max) }
        // Round up so a wait never ends a hair before its deadline and spins.
        return scaled + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
    }
}

extension PostgresError {
    func asConnectionLost() -> PostgresError {
        var copy = self
        copy.kind = .connectionLost
        return copy
    }
}
