import LedgerTestSupport
import PostgresLibPQ
import SubLedgerCore
import SubLedgerTestSupport
import Testing

@testable import SubLedgerStore

/// How many times the server waits for PostgreSQL per notification (docs/explanation/architecture.md, "The hot paths:
/// threads, round trips, JSON"): each round trip costs the server a blocking wait and two thread switches.
@Suite struct ApplyRoundTripTests {
    typealias F = LedgerFixtures
    let alice = F.account("alice")

    /// A renewal notification as `scripts/bench` sends them (no account token), on a chain stored before, with
    /// its statements already prepared on the connection: stored and applied in one transaction of three round
    /// trips (BEGIN, the notification's insert and the reads; the writes; the webhook events' insert and COMMIT).
    @Test func aRenewalNotificationIsStoredAndAppliedInFewRoundTrips() async throws {
        try await TestDatabase.withSchema(maxConnections: 1, template: .ledger) { _, _, pool in
            try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
            let store = LedgerStore(pool: pool)
            let app = try await F.app(on: store.pool)
            try await store.apply(
                F.receipt(
                    by: alice, [F.subscription("t1", chain: "o1", from: 0, to: 30)],
                    renewals: [F.renewal(chain: "o1", willAutoRenew: true, on: 0)], on: 0),
                app: app, now: F.day(0))
            var counts: [Int] = []
            for month in 1...3 {
                let renewal = F.subscription("t\(month + 1)", chain: "o1", from: month * 30, to: month * 30 + 30)
                let notification = ServerNotification(
                    notificationID: "n-\(month)", version: .v2, notificationType: "DID_RENEW", bundleID: F.bundleID,
                    environment: .production, signedDate: F.day(month * 30), transaction: renewal,
                    renewalInfo: F.renewal(chain: "o1", willAutoRenew: true, on: month * 30))
                let before = try await pool.withConnection { $0.roundTrips }
                guard
                    case .applied(_, let applied) = try await store.receive(
                        notification, body: "{}", input: LedgerInput(notification: notification), app: app,
                        now: F.day(month * 30))
                else {
                    Issue.record("renewal \(month) was not applied")
                    return
                }
                #expect(applied.newEntries == 1)
                counts.append(try await pool.withConnection { $0.roundTrips } - before)
            }
            print("apply round trips per renewal notification: \(counts)")
            #expect(counts.last == 3)
            #expect(try await store.entitlements(for: alice, app: app, at: F.day(100)).first?.expiresAt == F.day(120))
        }
    }
}
