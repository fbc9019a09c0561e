import Logging
import Synchronization
import Testing

@testable import SubLedgerCore
@testable import SubLedgerUseCases

/// `poll`'s one reconciliation poller: every store's reconciliation runs at its own interval, and one that fails
/// neither stops the others nor is lost.
@Suite struct ReconciliationPollerTests {
    /// A store's reconciliation that records its passes, and fails the ones it is told to.
    final class Recording: StoreReconciliation {
        let store: Store
        let interval: Duration
        let passes = Mutex(0)
        let failing: Bool

        init(_ store: Store, interval: Duration, failing: Bool = false) {
            self.store = store
            self.interval = interval
            self.failing = failing
        }

        struct Unreachable: Error {}

        func reconcile() async throws -> ReconciliationOutcome {
            passes.withLock { $0 += 1 }
            if failing { throw Unreachable() }
            return ReconciliationOutcome(summary: "\(store.rawValue): one pass", isWorthLogging: false)
        }
    }

    static let logger = Logger(label: "reconciliation-test")

    @Test func onceRunsOnePassOfEveryStore() async throws {
        let apple = Recording(.appStore, interval: .seconds(3_600))
        let google = Recording(.googlePlay, interval: .seconds(60))
        var configuration = ReconciliationPoller.Configuration()
        configuration.once = true
        try await ReconciliationPoller(
            configuration: configuration, reconciliations: [apple, google], logger: Self.logger
        )
        .run()
        #expect(apple.passes.withLock { $0 } == 1)
        #expect(google.passes.withLock { $0 } == 1)
    }

    /// A store that fails does not keep the next one from its pass; with `once` the failure is thrown after both ran,
    /// so `poll --once` ends with it.
    @Test func aFailingStoreDoesNotStopTheOthersAndOnceThrowsIt() async throws {
        let apple = Recording(.appStore, interval: .seconds(3_600), failing: true)
        let google = Recording(.googlePlay, interval: .seconds(60))
        var configuration = ReconciliationPoller.Configuration()
        configuration.once = true
        let poller = ReconciliationPoller(
            configuration: configuration, reconciliations: [apple, google], logger: Self.logger)
        await #expect(throws: Recording.Unreachable.self) { try await poller.run() }
        #expect(apple.passes.withLock { $0 } == 1)
        #expect(google.passes.withLock { $0 } == 1)
    }

    /// All are due at the start; then each is due `interval` after its own pass ended, and the poller sleeps until the
    /// soonest.
    @Test func eachRunsAtItsOwnInterval() {
        var schedule = ReconciliationSchedule(count: 2)
        #expect(schedule.due(at: .zero) == [0, 1])
        schedule.ran(0, every: .seconds(3_600), endedAt: .seconds(2))
        schedule.ran(1, every: .seconds(60), endedAt: .seconds(3))
        #expect(schedule.due(at: .seconds(10)).isEmpty)
        #expect(schedule.wait(at: .seconds(10)) == .seconds(53))
        #expect(schedule.due(at: .seconds(63)) == [1])
        schedule.ran(1, every: .seconds(60), endedAt: .seconds(64))
        // The minute-long one runs 59 times more before the hourly one is due again.
        var minutePasses = 1
        var now = Duration.seconds(64)
        while schedule.due(at: now) != [0] {
            now += schedule.wait(at: now)
            let due = schedule.due(at: now)
            if due == [1] {
                minutePasses += 1
                schedule.ran(1, every: .seconds(60), endedAt: now)
            }
        }
        #expect(now == .seconds(3_602))
        #expect(minutePasses == 59)
        #expect(schedule.wait(at: now) == .zero)
    }
}
