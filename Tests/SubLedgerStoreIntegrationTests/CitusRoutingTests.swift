import Foundation
import LedgerTestSupport
import PostgresLibPQ
import SubLedgerCore
import SubLedgerTestSupport
import Testing

@testable import SubLedgerStore

/// On the Citus cluster of `scripts/citus-test`: applying a notification sends every statement that touches a
/// distributed table to one shard, the webhook outbox's included. Read from Citus's own record of each statement
/// (`citus_stat_statements`: the partition key it routed by, none when the statement ran on every shard).
@Suite struct CitusRoutingTests {
    private typealias F = LedgerFixtures

    @Test(.enabled(if: TestDatabase.isCitus, "runs on the Citus cluster of scripts/citus-test"))
    func applyingANotificationSendsNoStatementToMoreThanOneShard() async throws {
        try await TestDatabase.withSchema(template: .ledger) { _, _, pool in
            let app = try await F.app(on: pool)
            let store = LedgerStore(pool: pool)
            let alice = F.account("alice")
            // Alice owns two chains; the notification renews one, and its event carries both chains' entitlements.
            let lifetime = Transaction(
                transactionID: "l1", chainID: "l1", productID: "lifetime", bundleID: F.bundleID,
                purchaseDate: F.day(1), environment: .production, source: .verifyReceipt)
            try await store.apply(
                F.receipt(by: alice, [F.subscription("t1", chain: "o1", from: 0, to: 30), lifetime], on: 1),
                app: app, now: F.day(1))

            let (routed, everyShard) = try await Self.statements(on: pool) {
                let applied = try await store.apply(
                    F.notification([F.subscription("t2", chain: "o1", from: 30, to: 60)], on: 30), app: app,
                    now: F.day(30))
                #expect(applied.newEntries == 1)
            }
            #expect(everyShard.isEmpty, "sent to every shard:\n\(everyShard.joined(separator: "\n"))")
            // The record holds the apply: the chain's load, the outbox's sequence numbers and the read model's read.
            for table in [
                "chains", "webhook_account_sequences", "account_entitlement_periods", "webhook_clock_moments",
            ] {
                #expect(routed.contains { $0.contains(table) }, "no statement on \(table) recorded")
            }

            let bodies = try await pool.query(
                "SELECT body FROM webhook_events WHERE cause_kind = 'notification' AND account_id = 'alice'"
            ).map { try $0.decode(String.self, at: 0) }
            #expect(!bodies.isEmpty)
            for body in bodies {
                #expect(body.contains(#""entitlement_id":"lifetime""#) && body.contains(#""entitlement_id":"pro""#))
            }
        }
    }

    /// A notification whose transaction carries an app account token (as Apple's renewals do, and Google's
    /// obfuscated account id): the accounts the token may name are looked up by account id (`accounts`) and by the
    /// token SubLedger gave (`account_tokens`, distributed by token), each with a statement that names its shard.
    @Test(.enabled(if: TestDatabase.isCitus, "runs on the Citus cluster of scripts/citus-test"))
    func aNotificationNamingAnAccountTokenSendsNoStatementToMoreThanOneShard() async throws {
        try await TestDatabase.withSchema(template: .ledger) { _, _, pool in
            let app = try await F.app(on: pool)
            let store = LedgerStore(pool: pool)
            let token = "6f1c2a7e-3b4d-4e5f-8a9b-0c1d2e3f4a5b"
            let buyer = F.account(token)
            try await store.apply(
                F.receipt(by: buyer, [F.subscription("t1", chain: "o1", from: 0, to: 30, token: token)], on: 1),
                app: app, now: F.day(1))

            let (routed, everyShard) = try await Self.statements(on: pool) {
                let applied = try await store.apply(
                    F.notification([F.subscription("t2", chain: "o1", from: 30, to: 60, token: token)], on: 30),
                    app: app, now: F.day(30))
                #expect(applied.newEntries == 1)
                #expect(applied.accounts["t2"] == buyer)
            }
            #expect(everyShard.isEmpty, "sent to every shard:\n\(everyShard.joined(separator: "\n"))")
            for table in ["accounts", "account_tokens", "chains", "webhook_account_sequences"] {
                #expect(
                    routed.contains { CitusStatements.words(of: $0).contains(table) },
                    "no statement on \(table) recorded")
            }
            let events = try await pool.query(
                "SELECT count(*)::bigint FROM webhook_events WHERE cause_kind = 'notification' AND account_id = \(token)"
            ).single().decode(Int64.self, at: 0)
            #expect(events > 0)
        }
    }

    /// The statements on distributed tables that `work` sent: those routed to one shard, and those run on every
    /// shard (`CitusStatements`).
    private static func statements(
        on pool: PostgresPool, during work: () async throws -> Void
    ) async throws -> (routed: [String], everyShard: [String]) {
        let recorded = try await CitusStatements.recorded(on: pool, during: work)
        #expect(recorded.distributed.contains("webhook_account_sequences") && recorded.distributed.contains("chains"))
        return (recorded.routed, recorded.everyShard)
    }
}
