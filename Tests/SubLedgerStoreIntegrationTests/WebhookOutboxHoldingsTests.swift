import Foundation
import LedgerTestSupport
import PostgresLibPQ
import SubLedgerCore
import SubLedgerStore
import SubLedgerTestSupport
import Testing

/// The entitlements a webhook event carries: read from the entitlement read model at the apply's instant (with the
/// periods the apply just rewrote), and from the account's chains when the read model cannot answer for it (an
/// account still to be backfilled).
@Suite struct WebhookOutboxHoldingsTests {
    private typealias F = LedgerFixtures

    private static let lifetime = Transaction(
        transactionID: "l1", chainID: "l1", productID: "lifetime", bundleID: F.bundleID,
        purchaseDate: F.day(1), environment: .production, source: .verifyReceipt)

    /// The entitlement ids of each of `account`'s events of `cause`, oldest first, with their sequence numbers.
    private static func events(
        of account: AccountID, cause: String, on pool: PostgresPool
    ) async throws -> [(sequence: Int64, entitlements: [String])] {
        try await pool.query(
            """
            SELECT account_sequence, body FROM webhook_events
            WHERE account_id = \(account.rawValue) AND cause_kind = \(cause) ORDER BY account_sequence
            """
        ).map { row in
            let body = try row.decode(String.self, at: 1)
            let json = try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any]
            let entitlements = (json?["entitlements"] as? [[String: Any]] ?? []).compactMap {
                $0["entitlement_id"] as? String
            }
            return (try row.decode(Int64.self, at: 0), entitlements.sorted())
        }
    }

    @Test func aRenewalsEventCarriesEveryChainsEntitlementFromTheReadModel() async throws {
        try await TestDatabase.withSchema(template: .ledger) { _, _, pool in
            try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
            let store = LedgerStore(pool: pool)
            let app = try await F.app(on: pool)
            let alice = F.account("alice")
            try await store.apply(
                F.receipt(by: alice, [F.subscription("t1", chain: "o1", from: 0, to: 30), Self.lifetime], on: 1),
                app: app, now: F.day(1))
            try await store.apply(
                F.notification([F.subscription("t2", chain: "o1", from: 30, to: 60)], on: 30), app: app,
                now: F.day(30))
            let renewed = try await Self.events(of: alice, cause: "notification", on: pool)
            #expect(!renewed.isEmpty)
            for event in renewed {
                #expect(event.entitlements == ["lifetime", "pro"])
            }
            // Numbers follow on from the receipt's events, without a gap.
            let all = try await pool.query(
                "SELECT account_sequence FROM webhook_events WHERE account_id = 'alice' ORDER BY account_sequence"
            ).map { try $0.decode(Int64.self, at: 0) }
            #expect(all == (0..<all.count).map { Int64($0 + 1) })
        }
    }

    /// An account on the backfill list (its periods may be incomplete) is answered from its chains: here its
    /// lifetime purchase's periods are missing, as for an account from before the read model.
    @Test func anAccountNotBackfilledYetIsAnsweredFromItsChains() async throws {
        try await TestDatabase.withSchema(template: .ledger) { _, _, pool in
            try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
            let store = LedgerStore(pool: pool)
            let app = try await F.app(on: pool)
            let alice = F.account("alice")
            try await store.apply(
                F.receipt(by: alice, [F.subscription("t1", chain: "o1", from: 0, to: 30), Self.lifetime], on: 1),
                app: app, now: F.day(1))
            try await pool.execute(
                script: """
                    DELETE FROM account_entitlement_periods WHERE account_id = 'alice' AND original_transaction_id = 'l1';
                    INSERT INTO account_entitlement_backfill (app_id, account_id) VALUES (\(app.appID), 'alice');
                    """)
            try await store.apply(
                F.notification([F.subscription("t2", chain: "o1", from: 30, to: 60)], on: 30), app: app,
                now: F.day(30))
            let renewed = try await Self.events(of: alice, cause: "notification", on: pool)
            #expect(!renewed.isEmpty)
            for event in renewed {
                #expect(event.entitlements == ["lifetime", "pro"])
            }
        }
    }
}
