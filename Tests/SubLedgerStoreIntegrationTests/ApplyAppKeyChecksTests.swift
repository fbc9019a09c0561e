import LedgerTestSupport
import PostgresLibPQ
import SubLedgerCore
import SubLedgerTestSupport
import Testing

@testable import SubLedgerStore

/// The ledger's rows name their app by id without a foreign key's check per row (schema step 56): the apply takes the
/// id from the app's row, and the app's row keeps its id for good.
@Suite struct ApplyAppKeyChecksTests {
    typealias F = LedgerFixtures
    let alice = F.account("alice")

    /// How many times statements of the current transaction read `apps` (by scan or by index): each foreign key's
    /// check of a row reads it once.
    static func appsReads(on connection: PostgresConnection) throws -> Int64 {
        try connection.query(
            """
            SELECT coalesce(sum(seq_scan + coalesce(idx_scan, 0)), 0)::bigint
            FROM pg_stat_xact_user_tables WHERE relname = 'apps'
            """
        ).single().decode(Int64.self, at: 0)
    }

    /// A renewal of a stored chain: its new transaction, its entry and its chain row are written without reading
    /// `apps`. What still reads it: the report projection queue's row and the webhook event's (tables beside the
    /// ledger, which keep their keys).
    @Test func aRenewalsLedgerRowsCheckNoAppKey() async throws {
        try await TestDatabase.withSchema(maxConnections: 1, template: .ledger) { _, _, pool in
            try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
            let store = LedgerStore(pool: pool)
            let app = try await F.app(on: store.pool)
            try await store.apply(
                F.receipt(
                    by: alice, [F.subscription("t1", chain: "o1", from: 0, to: 30)],
                    renewals: [F.renewal(chain: "o1", willAutoRenew: true, on: 0)], on: 0),
                app: app, now: F.day(0))
            let renewal = F.subscription("t2", chain: "o1", from: 30, to: 60)
            let notification = ServerNotification(
                notificationID: "n-1", version: .v2, notificationType: "DID_RENEW", bundleID: F.bundleID,
                environment: .production, signedDate: F.day(30), transaction: renewal,
                renewalInfo: F.renewal(chain: "o1", willAutoRenew: true, on: 30))
            let (reads, applied) = try await pool.transaction { connection in
                let before = try Self.appsReads(on: connection)
                let applied = try LedgerStore.apply(
                    LedgerInput(notification: notification), app: app, reference: .none, now: F.day(30),
                    on: connection)
                return (try Self.appsReads(on: connection) - before, applied)
            }
            #expect(applied.newEntries == 1)
            let tables = try await pool.query(
                """
                SELECT DISTINCT c.conrelid::regclass::text FROM pg_constraint c
                WHERE c.contype = 'f' AND c.confrelid = 'apps'::regclass
                  AND c.conrelid::regclass::text IN ('report_projection_queue', 'webhook_events')
                """
            ).count
            #expect(tables == 2)
            #expect(reads == 2, "apps read \(reads) times by a renewal's apply")
        }
    }

    /// The tables the apply writes per row carry no foreign key to `apps`.
    @Test func theLedgersTablesHaveNoKeyToApps() async throws {
        try await TestDatabase.withSchema(template: .ledger) { _, _, pool in
            try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
            let referencing = try await pool.query(
                """
                SELECT c.conrelid::regclass::text FROM pg_constraint c
                WHERE c.contype = 'f' AND c.confrelid = 'apps'::regclass
                """
            ).map { try $0.decode(String.self, at: 0) }
            for table in [
                "chains", "transactions", "ledger_entries", "accounts", "webhook_account_sequences",
                "webhook_clock_moments",
            ] {
                #expect(!referencing.contains(table), "\(table)")
            }
        }
    }

    /// What the dropped keys held: no row names an app that is not there, because an app's row is never deleted and
    /// never changes its id (an identity, which `SET app_id = DEFAULT` would still renumber).
    @Test func anAppsRowKeepsItsIdAndIsNeverDeleted() async throws {
        try await TestDatabase.withSchema(template: .ledger) { _, _, pool in
            try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
            let app = try await F.app(on: pool)
            for statement in [
                "DELETE FROM apps WHERE app_id = \(app.appID)",
                "UPDATE apps SET app_id = DEFAULT WHERE app_id = \(app.appID)",
                "TRUNCATE apps CASCADE",
            ] {
                await #expect {
                    try await pool.execute(script: statement)
                } throws: { error in
                    guard let error = error as? PostgresError else { return false }
                    return error.sqlState == .restrictViolation && error.message.contains("an app's row keeps its id")
                }
            }
            // Its other columns change as before.
            try await pool.execute(
                script: "UPDATE apps SET bundle_id = bundle_id WHERE app_id = \(app.appID)")
            #expect(try await pool.query("SELECT 1 FROM apps WHERE app_id = \(app.appID)").count == 1)
        }
    }
}
