import Foundation
import GooglePlay
import Logging
import SubLedgerCore
import Synchronization

/// The simulated Google Play: state under one lock, the manual clock, keys, faults and push delivery.
final class SimulatorEngine: Sendable {
    let state: Mutex<SimulatorState>
    let clock: Mutex<Instant>
    let wallClock: @Sendable () -> Instant
    let keys: SimulatorKeys
    let faults: FaultInjector
    let accessTokens: AccessTokens
    let serviceAccountEmail: String
    let delivery: PushDelivery
    let logger: Logger

    init(configuration: GooglePlaySimulator.Configuration, keys: SimulatorKeys, delivery: PushDelivery, logger: Logger)
    {
        var initial = SimulatorState(seed: configuration.seed)
        initial.notifications.settings = .init(
            pushURL: configuration.pushURL, audience: configuration.pushAudience,
            serviceAccountEmail: configuration.pushServiceAccountEmail)
        self.state = Mutex(initial)
        self.clock = Mutex(configuration.startTime)
        self.wallClock = configuration.wallClock
        self.keys = keys
        self.faults = FaultInjector(seed: configuration.seed)
        self.accessTokens = AccessTokens(seed: configuration.seed)
        self.serviceAccountEmail = configuration.serviceAccountEmail
        self.delivery = delivery
        self.logger = logger
    }

    var now: Instant { clock.withLock { $0 } }

    /// Runs a change under the lock, after applying what the clock has passed; publishes the events of both as
    /// notifications. Returns the body's result and the message ids it published.
    func mutate<Result: Sendable>(
        changingPurchases: Bool = true, _ body: (inout SimulatorState, Instant) throws(SimulatorError) -> Result
    ) throws(SimulatorError) -> (Result, [String]) {
        let now = self.now
        return try state.withLock { state throws(SimulatorError) -> (Result, [String]) in
            state.processDue(now: now)
            _ = Self.publish(&state, now: now)
            do throws(SimulatorError) {
                let result = try body(&state, now)
                if changingPurchases { state.changedSinceProcessing = true }
                return (result, Self.publish(&state, now: now))
            } catch {
                state.events.removeAll()
                throw error
            }
        }
    }

    /// Reads state under the lock, after applying what the clock has passed. `body` changes no purchase (it may
    /// change the notification settings).
    func read<Result: Sendable>(_ body: (inout SimulatorState) throws(SimulatorError) -> Result) throws(SimulatorError)
        -> Result
    {
        try mutate(changingPurchases: false) { state, _ throws(SimulatorError) in try body(&state) }.0
    }

    private static func publish(_ state: inout SimulatorState, now: Instant) -> [String] {
        let events = state.events
        state.events.removeAll()
        var ids: [String] = []
        for event in events {
            let id = state.makeMessageID()
            let at = event.eventTime.map { min($0, now) } ?? now
            state.notifications.publish(event, messageId: id, at: at)
            ids.append(id)
        }
        return ids
    }

    /// Moves the clock, applies what it passed, and pushes what is due.
    func advance(milliseconds: Int64) async -> Instant {
        let now = clock.withLock { clock in
            clock = clock.adding(milliseconds: milliseconds)
            return clock
        }
        _ = try? mutate { _, _ in () }
        await deliverDue()
        return now
    }

    /// Pushes every notification whose attempt is due, one at a time in publish order (a Pub/Sub subscription
    /// without ordering keys may reorder; keeping order makes tests readable).
    func deliverDue() async {
        let now = self.now
        let due = state.withLock { state in
            state.notifications.takeDue(now: now).map {
                ($0, state.notifications.records[$0], state.notifications.settings)
            }
        }
        for (index, record, settings) in due {
            guard let url = settings.pushURL else {
                state.withLock { $0.notifications.record(nil, at: index) }
                continue
            }
            let at = Instant(
                millisecondsSince1970: min(
                    record.nextAttemptAt ?? now.millisecondsSince1970, now.millisecondsSince1970))
            let attempt = await delivery.push(
                record, to: url, audience: settings.audience ?? url, email: settings.serviceAccountEmail,
                authenticated: !settings.unauthenticated, at: at, wallNow: wallClock())
            state.withLock { $0.notifications.record(attempt, at: index) }
        }
    }
}
