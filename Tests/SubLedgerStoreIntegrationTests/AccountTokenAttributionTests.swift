import LedgerTestSupport
import PostgresLibPQ
import SubLedgerCore
import SubLedgerTestSupport
import Testing

@testable import SubLedgerStore

/// The tokens SubLedger gives accounts when it writes their token back to Apple (`account_tokens`): one per account,
/// made once, and read by the apply as naming that account, like an account id or an order id.
@Suite struct AccountTokenAttributionTests {
    typealias F = LedgerFixtures

    @Test func aTokenGivenToAnAccountNamesItInALaterPayloadAndStaysTheSame() async throws {
        try await TestDatabase.withSchema(maxConnections: 8, template: .ledger) { _, _, pool in
            try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
            let store = LedgerStore(pool: pool)
            let app = try await F.app(on: store.pool)
            let writeBacks = AccountTokenStore(pool: pool)
            let erin = F.account("erin")

            // Made once, however often (and however concurrently) it is asked for.
            async let first = writeBacks.token(for: erin, appID: app.appID)
            async let second = writeBacks.token(for: erin, appID: app.appID)
            let (one, two) = try await (first, second)
            #expect(one == two)
            #expect(UUIDFormat.isUUID(one))
            #expect(try await writeBacks.token(for: erin, appID: app.appID) == one)
            let made = try await pool.query("SELECT count(*) FROM account_tokens").single().decode(Int64.self, at: 0)
            #expect(made == 1)
            // An account whose id is a UUID is its own token.
            let uuidAccount = F.account("0B9D6F52-3C1E-4B7A-9D2F-5E8A7C6B4D3E")
            #expect(
                try await writeBacks.token(for: uuidAccount, appID: app.appID) == "0b9d6f52-3c1e-4b7a-9d2f-5e8a7c6b4d3e"
            )

            // A purchase Apple sends with that token and no submitter is erin's.
            let purchase = F.subscription("t1", chain: "o1", from: 1, to: 31, token: one.uppercased())
            let applied = try await store.apply(F.notification([purchase], on: 1), app: app, now: F.day(1))
            #expect(applied.accounts["t1"] == erin)
            #expect(try await store.entitlements(for: erin, app: app, at: F.day(2)).map(\.entitlementID) == ["pro"])
            // A token nobody was given names nobody: the purchase waits.
            let stranger = F.subscription(
                "t2", chain: "o2", from: 1, to: 31, token: "7d3a1f0e-2b4c-4d5e-8f6a-9b0c1d2e3f4a")
            let waiting = try await store.apply(F.notification([stranger], on: 1), app: app, now: F.day(1))
            #expect(waiting.accounts["t2"] == nil)
        }
    }
}
