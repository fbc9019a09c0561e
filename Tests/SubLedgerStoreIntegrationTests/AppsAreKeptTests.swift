import LedgerTestSupport
import PostgresLibPQ
import SubLedgerCore
import SubLedgerStore
import SubLedgerTestSupport
import Testing

/// The ledger's rows name their app without a foreign key (schema step 62): `apps` keeps every row, so none can
/// come to name an app that is gone.
@Suite struct AppsAreKeptTests {
    typealias F = LedgerFixtures

    @Test func anAppIsNeverDeletedNorRenumberedAndItsRowsStayItsOwn() async throws {
        try await TestDatabase.withSchema(template: .ledger) { _, _, pool in
            try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
            let store = LedgerStore(pool: pool)
            let app = try await F.app(on: pool)
            try await store.apply(
                F.receipt(by: F.account("alice"), [F.subscription("t1", chain: "o1", from: 0, to: 30)], on: 0),
                app: app, now: F.day(0))
            await #expect {
                try await pool.query("DELETE FROM apps WHERE app_id = \(app.appID)")
            } throws: { ($0 as? PostgresError)?.sqlState == .restrictViolation }
            await #expect {
                try await pool.query("UPDATE apps SET app_id = DEFAULT WHERE app_id = \(app.appID)")
            } throws: { ($0 as? PostgresError)?.sqlState == .restrictViolation }
            // Its other columns change as the catalog says.
            try await pool.query("UPDATE apps SET bundle_id = bundle_id WHERE app_id = \(app.appID)")
            #expect(try await store.entitlements(for: F.account("alice"), app: app, at: F.day(1)).count == 1)
        }
    }
}
