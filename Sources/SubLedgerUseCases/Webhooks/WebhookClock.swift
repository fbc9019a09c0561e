import Logging
import ServiceLifecycle
import SubLedgerCore
import SubLedgerStore

/// The time-driven webhook events (`entitlement.expired`, a grace period's end): every `interval`, settles
/// the clock's due moments through the outbox. Run by `subledger poll`; any number of pollers may run it,
/// and each moment still yields its events once (docs/guides/webhooks.md).
public struct WebhookClock: Service {
    /// How the clock runs.
    public struct Configuration: Sendable {
        /// Between passes: at most 15 s, so an event follows its moment within the documented 60 s.
        public var interval: Duration = .seconds(10)
        /// The most moments one pass lists (a pass repeats while it finds a full batch).
        public var batchSize = 200
        /// One pass and return (`poll --once`).
        public var once = false

        public init() {}
    }

    let configuration: Configuration
    let store: LedgerStore
    let logger: Logger
    let now: @Sendable () -> Instant

    public init(
        configuration: Configuration = Configuration(), store: LedgerStore, logger: Logger,
        now: @escaping @Sendable () -> Instant
    ) {
        self.configuration = configuration
        self.store = store
        self.logger = logger
        self.now = now
    }

    /// Settles every moment due now; returns how many events were written.
    @discardableResult
    public func runPass() async throws -> Int {
        var written = 0
        // A full batch may hide more due moments; a moment another clock holds stays listed, so the passes
        // are bounded rather than repeated until the list is empty.
        for _ in 0..<10 {
            let instant = now()
            let due = try await store.dueWebhookMoments(now: instant, limit: configuration.batchSize)
            for moment in due {
                written += try await store.settleWebhookMoment(moment, now: instant)
            }
            if due.count < configuration.batchSize || Task.isCancelled { break }
        }
        return written
    }

    public func run() async throws {
        while !Task.isCancelled {
            do {
                let written = try await runPass()
                if written > 0 { logger.debug("webhook clock wrote \(written) events") }
            } catch {
                logger.error("webhook clock pass failed", metadata: ["error": "\(error)"])
            }
            if configuration.once || Task.isShuttingDownGracefully { return }
            try? await cancelWhenGracefulShutdown { try await Task.sleep(for: configuration.interval) }
        }
    }
}
