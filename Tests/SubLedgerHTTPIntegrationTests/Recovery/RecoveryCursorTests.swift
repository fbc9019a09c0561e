import AppStore
import AppStoreSimulator
import Foundation
import SubLedgerCore
import SubLedgerHTTP
import SubLedgerStore
import SubLedgerTestSupport
import SubLedgerUseCases
import Testing

/// The history cursor: it survives a restart, Apple's failures never move it, and two processes recovering
/// at once apply each notification once.
@Suite struct RecoveryCursorTests {
    typealias E = EndToEndHarness

    /// One process sets the cursor; Apple then fails its next run (the cursor stays); a new process with new
    /// store, gateway and cursor instances goes on from the stored cursor, less the margin, and recovers all.
    @Test func theCursorSurvivesARestartAndAppleFailures() async throws {
        try await E.run { e in
            try await e.giveServerAPICredentials()
            let originals = try await e.subscribeEveryone()
            let first = try e.recovery(worker: "first-process")
            let established = try await first.run()
            let cursorAfterFirst = try #require(established.ours.first { $0.environment == .production }?.completeUntil)
            #expect(cursorAfterFirst == Instant(millisecondsSince1970: e.control.clock().now))

            try await e.threeDaysAroundTheRenewal(originals, drop: true)
            e.control.setFault(FaultRule(kind: .http503), for: .serverAPI)
            let failed = try await first.run()
            #expect(failed.ours.allSatisfy { $0.result == .failed })
            #expect(failed.hasFailures)
            #expect(failed.applied == 0)
            let stored = try await NotificationHistoryCursors(pool: e.service.pool).all()
            #expect(stored.first { $0.environment == .production }?.completeUntil == cursorAfterFirst)
            #expect(stored.allSatisfy { $0.lastResult == "failed" && $0.lastError != nil })
            e.control.clearFaults()

            let restarted = try e.recovery(worker: "second-process")
            let run = try await restarted.run()
            let production = try #require(run.ours.first { $0.environment == .production })
            #expect(production.result == .complete)
            #expect(production.from == cursorAfterFirst.adding(milliseconds: -3_600_000))
            #expect(production.applied == e.dropped.count)
            #expect(production.completeUntil == Instant(millisecondsSince1970: e.control.clock().now))
        }
    }

    /// Two recoveries at once (two processes): each notification is applied once, whichever process fetched it.
    @Test func twoConcurrentRecoveriesApplyEachNotificationOnce() async throws {
        try await E.run { e in
            try await e.giveServerAPICredentials()
            let originals = try await e.subscribeEveryone()
            _ = try await e.recovery().run()
            try await e.threeDaysAroundTheRenewal(originals, drop: true)
            let before = try await e.storedNotifications()
            let entriesBefore = try await e.outcome().entriesByKind.values.reduce(0, +)

            let one = try e.recovery(worker: "one")
            let two = try e.recovery(worker: "two")
            async let first = one.run()
            async let second = two.run()
            let (a, b) = try await (first, second)
            let dropped = e.dropped.count
            #expect(dropped >= 6)
            #expect(a.applied + b.applied == dropped)
            #expect(!a.hasFailures && !b.hasFailures)
            let after = try await e.storedNotifications()
            #expect(after.stored == before.stored + Int64(dropped))
            #expect(after.applied == after.stored)

            // A third run changes nothing, and the ledger grew by the dropped notifications' effects only once.
            let entriesAfter = try await e.outcome().entriesByKind.values.reduce(0, +)
            let third = try await e.recovery(worker: "three").run()
            #expect(third.applied == 0)
            #expect(try await e.outcome().entriesByKind.values.reduce(0, +) == entriesAfter)
            #expect(entriesAfter > entriesBefore)
        }
    }

    /// `subledger poll`'s reconciliation poller runs one recovery when it starts (`--once`: only that one) and
    /// returns.
    @Test func theReconciliationPollerRecoversWhenItStarts() async throws {
        try await E.run { e in
            try await e.giveServerAPICredentials()
            _ = try await e.subscribeEveryone()
            var configuration = ReconciliationPoller.Configuration()
            configuration.once = true
            let poller = ReconciliationPoller(
                configuration: configuration, reconciliations: [try e.recovery()], logger: TestDatabase.logger)
            try await poller.run()
            let cursors = try await NotificationHistoryCursors(pool: e.service.pool).all()
            #expect(cursors.map(\.environment) == [.production, .sandbox])
            #expect(cursors.allSatisfy { $0.lastResult == "complete" && $0.completeUntil != nil })
        }
    }

    /// The lease: while one process holds an app's cursor, another is told it is busy and fetches nothing.
    @Test func aCursorLeasedByAnotherProcessIsBusy() async throws {
        try await E.run { e in
            try await e.giveServerAPICredentials()
            let app = try #require(try await e.service.catalog.app(bundleID: E.bundleID))
            let cursors = NotificationHistoryCursors(pool: e.service.pool)
            let now = Instant(millisecondsSince1970: e.control.clock().now)
            let held = try await cursors.claim(
                appID: app.appID, environment: .production, worker: "elsewhere", lease: .seconds(600), now: now)
            #expect(held != nil)
            let run = try await e.recovery().run()
            #expect(run.ours.first { $0.environment == .production }?.result == .busy)
            #expect(run.ours.first { $0.environment == .sandbox }?.result == .complete)
            // The lease runs out: the next run takes the cursor over.
            _ = await e.control.advanceClock(.init(minutes: 11))
            let later = try await e.recovery().run()
            #expect(later.ours.allSatisfy { $0.result == .complete })
        }
    }
}
