import AppStore
import Foundation
import Logging
import SubLedgerCore
import Synchronization

/// The simulated App Store: state under one lock, the clock, the signer, faults and notification delivery.
final class SimulatorEngine: Sendable {
    let clock: SimulatorClock
    let signer: PayloadSigner
    let state: Mutex<SimulatorState>
    let faults: FaultInjector
    let seed: UInt64
    let logger: Logger
    let delivery: NotificationDelivery
    /// When a mass extension completes by itself (`Configuration.massExtensionCompletionDelay`).
    let massExtensionCompletionDelay: Duration?
    /// The Server API's per-app rate limits (off until configured).
    let rateLimits = ServerAPIRateLimits()
    /// The `verifyReceipt` requests received per environment.
    let verifyReceiptRequests = VerifyReceiptRequests()

    init(configuration: AppStoreSimulator.Configuration, delivery: NotificationDelivery, logger: Logger) throws {
        let start =
            configuration.startTime
            ?? (configuration.clockMode == .manual
                ? AppStoreSimulator.Configuration.defaultManualStart : Instant.systemNow())
        self.clock = SimulatorClock(
            mode: configuration.clockMode, start: start, acceleration: configuration.acceleration)
        self.signer = try PayloadSigner(chain: SimulatorSigningChain.make(seed: configuration.seed))
        var initial = SimulatorState(seed: configuration.seed)
        initial.notifications.settings.defaultURL = configuration.notificationURL
        self.state = Mutex(initial)
        self.faults = FaultInjector(seed: configuration.seed)
        self.seed = configuration.seed
        self.logger = logger
        self.delivery = delivery
        self.massExtensionCompletionDelay = configuration.massExtensionCompletionDelay
    }

    var context: SimulatorState.Context {
        SimulatorState.Context(now: clock.now(), sandboxDurations: clock.usesSandboxDurations)
    }

    /// Runs a state change under the lock (after applying whatever the clock has passed), then turns its
    /// events into notifications. Returns the body's result and the new notifications' UUIDs.
    func mutate<Result: Sendable>(
        _ body: (inout SimulatorState, SimulatorState.Context) throws(SimulatorError) -> Result
    ) throws(SimulatorError) -> (Result, [String]) {
        let context = self.context
        let signer = self.signer
        return try state.withLock { state throws(SimulatorError) -> (Result, [String]) in
            try state.processDue(context)
            do throws(SimulatorError) {
                let result = try body(&state, context)
                let uuids = try state.makeNotifications(signer: signer, now: context.now)
                return (result, uuids)
            } catch {
                // Events of a failed operation's completed steps still happened; keep them.
                _ = try? state.makeNotifications(signer: signer, now: context.now)
                throw error
            }
        }
    }

    /// Reads state under the lock.
    func read<Result: Sendable>(
        _ body: (inout SimulatorState) throws(SimulatorError) -> Result
    ) throws(SimulatorError) -> Result {
        try state.withLock { state throws(SimulatorError) -> Result in try body(&state) }
    }

    /// Applies what the clock has passed and delivers due notifications; returns new notification UUIDs.
    @discardableResult
    func tick() async -> [String] {
        let uuids = (try? mutate { _, _ in () }.1) ?? []
        await deliverDue()
        return uuids
    }

    /// Sends every notification whose attempt is due, then the retries that became due meanwhile: a clock moved
    /// by days at once fires every retry of Apple's schedule it passed, each dated when it was due, as Apple's
    /// would have been. Notifications of different chains are posted concurrently (at most
    /// `concurrentDeliveries` at once), those of one chain one after another in dispatch order, so a slow or
    /// refusing receiver costs one attempt's time per wave, not per notification. With `out_of_order` on, the
    /// order it chose is the point: everything goes one after another.
    func deliverDue() async {
        let now = clock.now()
        while true {
            let due = state.withLock { $0.notifications.takeDue(now: now) }
            guard !due.isEmpty else { return }
            let (duplicate, inOneLane) = state.withLock {
                ($0.notifications.settings.duplicate, $0.notifications.settings.outOfOrder)
            }
            var lanes: [[NotificationRecord]] = []
            var laneByChain: [String: Int] = [:]
            for record in due {
                let chain = inOneLane ? "" : record.originalTransactionID ?? "notification:" + record.uuid
                if let lane = laneByChain[chain] {
                    lanes[lane].append(record)
                } else {
                    laneByChain[chain] = lanes.count
                    lanes.append([record])
                }
            }
            await withTaskGroup(of: Void.self) { group in
                for (index, lane) in lanes.enumerated() {
                    if index >= Self.concurrentDeliveries { await group.next() }
                    group.addTask { await self.deliver(lane, duplicate: duplicate, now: now) }
                }
            }
        }
    }

    /// How many chains' notifications are posted at once.
    static let concurrentDeliveries = 32

    /// Posts one chain's due notifications in order and records each attempt.
    private func deliver(_ lane: [NotificationRecord], duplicate: Bool, now: Instant) async {
        for record in lane {
            guard let url = record.url, let body = record.body else { continue }
            let at = min(record.nextAttemptAt ?? now, now)
            let attempt = await delivery.post(body: body, to: url, at: at)
            if duplicate, attempt.result == "SUCCESS" {
                _ = await delivery.post(body: body, to: url, at: at)
            }
            state.withLock { $0.notifications.record(uuid: record.uuid, attempt: attempt) }
        }
    }
}
