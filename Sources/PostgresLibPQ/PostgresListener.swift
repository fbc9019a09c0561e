import Foundation
import Logging
import Synchronization

extension PostgresPool {
    /// Listens on a channel over a dedicated connection (outside the pool, on its own thread).
    ///
    /// Returns once LISTEN is active, so a notification sent after this returns is delivered; throws if
    /// that first connection fails. Later connection losses are retried with jittered exponential backoff
    /// (up to `configuration.listenerMaxReconnectDelay`) and are logged. Notifications sent while
    /// reconnecting are lost, as PostgreSQL does not queue them for absent listeners: treat each one as
    /// a hint to re-read state, not as the state itself. Ending the iteration (or cancelling the task
    /// iterating it) closes the connection.
    public func listen(channel: String) async throws -> AsyncThrowingStream<PostgresNotification, any Error> {
        _ = try PostgresConnection.quotedChannel(channel)
        let listener = NotificationListener(channel: channel, configuration: configuration, logger: logger) {
            [weak self] listener in
            self?.listenerFinished(listener)
        }
        guard register(listener) else {
            throw PostgresError(.poolClosed, message: "the connection pool is shut down")
        }
        return try await listener.start()
    }
}

/// The LISTEN loop: connect, LISTEN, wait for notifications with poll(2), reconnect on failure.
final class NotificationListener: Sendable {
    private let channel: String
    private let configuration: PostgresConfiguration
    private let logger: Logger
    private let onFinish: @Sendable (NotificationListener) -> Void
    private let stopRequested = Atomic<Bool>(false)
    // Signalled by `stop()` to cut a reconnect backoff short.
    private let wakeUp = DispatchSemaphore(value: 0)
    /// How long one wait for notifications lasts before the stop flag is checked again.
    private static let pollInterval: Duration = .milliseconds(200)
    private static let initialReconnectDelay: Duration = .milliseconds(100)

    init(
        channel: String, configuration: PostgresConfiguration, logger: Logger,
        onFinish: @escaping @Sendable (NotificationListener) -> Void
    ) {
        self.channel = channel
        self.configuration = configuration
        self.logger = logger
        self.onFinish = onFinish
    }

    func start() async throws -> AsyncThrowingStream<PostgresNotification, any Error> {
        let (stream, output) = AsyncThrowingStream.makeStream(of: PostgresNotification.self, throwing: (any Error).self)
        output.onTermination = { [self] _ in
            stop()
        }
        try await withCheckedThrowingContinuation { (ready: CheckedContinuation<Void, any Error>) in
            let thread = Thread { [self] in
                run(ready: ready, output: output)
            }
            thread.name = "postgres-listen"
            thread.start()
        }
        return stream
    }

    func stop() {
        stopRequested.store(true, ordering: .sequentiallyConsistent)
        wakeUp.signal()
    }

    private var isStopping: Bool {
        stopRequested.load(ordering: .sequentiallyConsistent)
    }

    private func run(
        ready: CheckedContinuation<Void, any Error>,
        output: AsyncThrowingStream<PostgresNotification, any Error>.Continuation
    ) {
        var pendingReady: CheckedContinuation<Void, any Error>? = ready
        defer { onFinish(self) }
        var delay = Self.initialReconnectDelay
        while !isStopping {
            do {
                let connection = try PostgresConnection.connect(configuration, logger: logger)
                defer { connection.close() }
                try connection.listen(channel: channel)
                if let continuation = pendingReady {
                    pendingReady = nil
                    continuation.resume()
                } else {
                    logger.info("LISTEN connection re-established", metadata: ["postgres.channel": "\(channel)"])
                }
                delay = Self.initialReconnectDelay
                while !isStopping {
                    for notification in try connection.waitForNotifications(timeout: Self.pollInterval) {
                        output.yield(notification)
                    }
                }
            } catch {
                if let continuation = pendingReady {
                    output.finish(throwing: error)
                    continuation.resume(throwing: error)
                    return
                }
                if isStopping { break }
                logger.warning(
                    "LISTEN connection lost; reconnecting",
                    metadata: [
                        "postgres.channel": "\(channel)",
                        "postgres.error": "\(error)",
                        "postgres.retry_delay": "\(delay)",
                    ])
                let jittered = delay * Double.random(in: 0.5...1.0)
                _ = wakeUp.wait(timeout: .now() + Self.timeInterval(jittered))
                delay = min(delay * 2, configuration.listenerMaxReconnectDelay)
            }
        }
        output.finish()
        pendingReady?.resume(
            throwing: PostgresError(.poolClosed, message: "listener stopped before LISTEN was active"))
    }

    private static func timeInterval(_ duration: Duration) -> DispatchTimeInterval {
        let (seconds, attoseconds) = duration.components
        let nanoseconds = max(0, seconds).multipliedReportingOverflow(by: 1_000_000_000)
        if nanoseconds.overflow { return .never }
        return .nanoseconds(Int(clamping: nanoseconds.partialValue + max(0, attoseconds) / 1_000_000_000))
    }
}
