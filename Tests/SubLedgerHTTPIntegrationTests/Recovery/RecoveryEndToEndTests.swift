import AppStore
import AppStoreSimulator
import Foundation
import SubLedgerCore
import SubLedgerHTTP
import SubLedgerStore
import SubLedgerTestSupport
import SubLedgerUseCases
import Testing

/// Missed-notification recovery against appstore-sim and PostgreSQL: notifications dropped for three
/// simulated days come back from Apple's notification history, each applied once.
@Suite struct RecoveryEndToEndTests {
    typealias E = EndToEndHarness

    /// The done-when test: a drop of three days, beyond Apple's retries, is recovered by one run; each dropped
    /// notification is applied exactly once; the ledger and entitlements equal those of a run without the
    /// drop; a second run recovers nothing; a notification that arrived and is in the history is a no-op.
    @Test func notificationsDroppedForThreeDaysAreAllRecoveredOnce() async throws {
        // The reference: the same story with every notification delivered.
        let (reference, _) = try await Self.story(drop: false)
        let (recovered, beforeRecovery) = try await Self.story(drop: true)
        // Before the recovery SubLedger is wrong (bob keeps a refunded renewal's access or the renewals are
        // missing); after it, the ledger entries and entitlements are exactly those of the reference.
        #expect(beforeRecovery != reference)
        #expect(recovered == reference)
        #expect(reference.entitlements["alice"]?.contains("\"pro\"") == true)
        #expect(reference.entitlements["bob"]?.contains("\"pro\"") == false)
        #expect(reference.entriesByKind["revoke"] ?? 0 >= 1)
    }

    /// Runs the story and returns its outcome. With `drop`, it also checks the recovery run by run.
    /// Returns the outcome at the end and the one just before the recovery run.
    static func story(drop: Bool) async throws -> (end: RecoveryOutcome, beforeRecovery: RecoveryOutcome) {
        let outcome = OutcomeBox()
        let beforeRecovery = OutcomeBox()
        try await E.run { e in
            try await e.giveServerAPICredentials()
            let originals = try await e.subscribeEveryone()
            let recovery = try e.recovery()
            // The first run sets the cursor: Apple's history holds the four purchases, all had already.
            let first = try await recovery.run()
            #expect(first.ours.map(\.result) == [.complete, .complete])
            #expect(first.applied == 0)
            #expect(first.alreadyHad == 4)

            try await e.threeDaysAroundTheRenewal(originals, drop: drop)
            let dropped = e.dropped
            if drop {
                // Four renewals, a refund and a renewal-status change, at least; none reached SubLedger.
                #expect(dropped.count >= 6)
                #expect(dropped.allSatisfy { $0.attempts == 0 })
                #expect(
                    Set(dropped.map(\.notificationType)).isSuperset(of: [
                        "DID_RENEW", "REFUND", "DID_CHANGE_RENEWAL_STATUS",
                    ]))
            } else {
                #expect(dropped.isEmpty)
            }
            let before = try await e.storedNotifications()
            beforeRecovery.set(try await e.outcome())

            let run = try await recovery.run()
            #expect(run.ours.map(\.result) == [.complete, .complete])
            let production = try #require(run.ours.first { $0.environment == .production })
            // Every dropped notification newly applied; the ones that had arrived (dave's, delivered after
            // the drop, and everything since the cursor's margin) were no-ops.
            #expect(production.applied == dropped.count)
            #expect(production.alreadyHad >= 1)
            let after = try await e.storedNotifications()
            #expect(after.stored == before.stored + Int64(dropped.count))
            #expect(after.stored == Int64(e.control.notifications().count))
            #expect(after.applied == after.stored)

            // The metrics count them (the registry is process-wide: other tests add to it too).
            if drop {
                let scraped = try await MetricsTests.scrape(e.client).text
                let applied = MetricsTests.sample(
                    scraped, "subledger_recovery_notifications_total{", ["result=\"applied\""])
                #expect((applied ?? 0) >= Double(dropped.count))
                #expect(
                    MetricsTests.sample(scraped, "subledger_recovery_notifications_total{", ["result=\"already_had\""])
                        != nil)
                #expect(MetricsTests.sample(scraped, "subledger_recovery_runs_total{", ["result=\"complete\""]) != nil)
                #expect(MetricsTests.sample(scraped, "subledger_recovery_runs_total{", ["result=\"skipped\""]) != nil)
                #expect(
                    MetricsTests.sample(
                        scraped, "subledger_recovery_cursor_lag_seconds{",
                        ["app=\"\(E.bundleID)\"", "environment=\"Production\""]) != nil)
            }

            // A second run finds nothing new.
            let second = try await recovery.run()
            #expect(second.applied == 0)
            #expect(try await e.storedNotifications() == after)
            outcome.set(try await e.outcome())
        }
        return (try outcome.get(), try beforeRecovery.get())
    }

    /// A notification that was delivered and is in the history too changes nothing when recovered: its row
    /// is the one stored at delivery, and the ledger is as it was.
    @Test func aRecoveredNotificationThatHadArrivedIsANoOp() async throws {
        try await E.run { e in
            try await e.giveServerAPICredentials()
            _ = try await e.subscribeEveryone()
            let before = try await e.outcome()
            let stored = try await e.storedNotifications()
            let run = try await e.recovery().run()
            #expect(run.applied == 0)
            #expect(run.alreadyHad == 4)
            #expect(try await e.outcome() == before)
            #expect(try await e.storedNotifications() == stored)
        }
    }

    /// A recovered notification that is stored but fails to apply (here: the database refuses revocations for
    /// a while) does not hold the cursor back: the window completes, and the renewal job applies it later.
    @Test func aRecoveredNotificationThatFailsToApplyIsLeftToTheRenewalJob() async throws {
        try await E.run { e in
            try await e.giveServerAPICredentials()
            let originals = try await e.subscribeEveryone()
            let recovery = try e.recovery()
            _ = try await recovery.run()
            try await e.threeDaysAroundTheRenewal(originals, drop: true)
            // One statement at a time (Citus sends a trigger's statement on to the shards), and on Citus the
            // trigger fires there, which Citus allows only when asked to.
            try await e.service.pool.withConnection { connection in
                if TestDatabase.isCitus { try connection.execute(script: "SET citus.enable_unsafe_triggers = on") }
                try connection.execute(
                    script: """
                        CREATE FUNCTION refuse_revocations() RETURNS trigger LANGUAGE plpgsql
                            AS $$ BEGIN RAISE EXCEPTION 'revocations refused by the test'; END $$
                        """)
                try connection.execute(
                    script: """
                        CREATE TRIGGER refuse_revocations BEFORE INSERT ON ledger_entries
                            FOR EACH ROW WHEN (NEW.kind = 'revoke') EXECUTE FUNCTION refuse_revocations()
                        """)
                if TestDatabase.isCitus { try connection.execute(script: "RESET citus.enable_unsafe_triggers") }
            }

            let run = try await recovery.run()
            let production = try #require(run.ours.first { $0.environment == .production })
            #expect(production.result == .complete)
            #expect(production.deferred == 1)
            #expect(production.applied == e.dropped.count - 1)
            #expect(production.completeUntil == Instant(millisecondsSince1970: e.control.clock().now))
            #expect(try await e.entitlements("bob").entitlementIDs == ["pro"])  // the refund is not applied yet

            try await e.service.pool.withConnection { connection in
                if TestDatabase.isCitus { try connection.execute(script: "SET citus.enable_unsafe_triggers = on") }
                try connection.execute(script: "DROP TRIGGER refuse_revocations ON ledger_entries")
                if TestDatabase.isCitus { try connection.execute(script: "RESET citus.enable_unsafe_triggers") }
            }
            _ = await e.control.advanceClock(.init(minutes: 3))
            let cycle = try await EndToEndTests.poller(e).runCycle()
            #expect(cycle.notifications == 1)
            #expect(try await e.entitlements("bob").entitlementIDs.isEmpty)
            let stored = try await e.storedNotifications()
            #expect(stored.applied == stored.stored)
        }
    }

    /// More dropped notifications than Apple's page holds (20) in one window: the recovery pages through
    /// `paginationToken` and applies all of them.
    @Test func moreNotificationsThanOnePageAreAllRecovered() async throws {
        try await E.run { e in
            try await e.giveServerAPICredentials()
            _ = try await e.subscribeEveryone()
            let recovery = try e.recovery()
            _ = try await recovery.run()
            _ = await e.control.updateNotificationSettings(.init(drop: true))
            let buyer = try e.appleID()
            for _ in 0..<45 {
                _ = try await e.control.purchase(
                    PurchaseRequest(appleID: buyer, bundleID: E.bundleID, productID: "coins.100"))
            }
            _ = await e.control.advanceClock(.init(hours: 2))
            #expect(e.dropped.count == 45)
            let run = try await recovery.run()
            let production = try #require(run.ours.first { $0.environment == .production })
            #expect(production.result == .complete)
            #expect(production.applied == 45)
            let stored = try await e.storedNotifications()
            #expect(stored.stored == Int64(e.control.notifications().count))
        }
    }

    /// An app without App Store Server API credentials is skipped (and said so), not failed; so is app two
    /// (which never has them in these tests) in every run above.
    @Test func appsWithoutServerAPICredentialsAreSkipped() async throws {
        try await E.run { e in
            let run = try await e.recovery().run()
            #expect(!run.units.isEmpty)
            #expect(run.units.allSatisfy { $0.result == .skipped })
            #expect(!run.hasFailures)
            #expect(try await NotificationHistoryCursors(pool: e.service.pool).all().isEmpty)
        }
    }
}

/// Carries the outcome out of the harness's closure.
final class OutcomeBox: @unchecked Sendable {
    private let lock = NSLock()
    private var value: RecoveryOutcome?
    func set(_ outcome: RecoveryOutcome) { lock.withLock { value = outcome } }
    func get() throws -> RecoveryOutcome { try lock.withLock { try E.require(value) } }
    typealias E = EndToEndHarness
}
