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
            // Citus reads its record through pg_stat_statements (preloaded on the coordinator by
            // scripts/citus-cluster); the extension's objects are needed in this database, on the coordinator only.
            try await pool.execute(
                script: """
                    SET citus.enable_ddl_propagation = off;
                    CREATE EXTENSION IF NOT EXISTS pg_stat_statements;
                    RESET citus.enable_ddl_propagation;
                    """)
            let app = try await F.app(on: pool)
            let store = LedgerStore(pool: pool)
            let alice = F.account("alice")
            // Alice owns two chains; the notification renews one, and its event carries both chains' entitlements.
            let lifetime = Transaction(
                transactionID: "l1", originalTransactionID: "l1", productID: "lifetime", bundleID: F.bundleID,
                purchaseDate: F.day(1), environment: .production, source: .verifyReceipt)
            try await store.apply(
                F.receipt(by: alice, [F.subscription("t1", chain: "o1", from: 0, to: 30), lifetime], on: 1),
                app: app, now: F.day(1))

            // Every statement of this database Citus recorded, by statement and partition key, with its calls.
            let recorded: PostgresQuery = """
                SELECT queryid::text || '/' || coalesce(partition_key, ''), calls, query, partition_key
                FROM citus_stat_statements
                WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
                """
            func calls() async throws -> [String: Int64] {
                var result: [String: Int64] = [:]
                for row in try await pool.query(recorded) {
                    result[try row.decode(String.self, at: 0)] = try row.decode(Int64.self, at: 1)
                }
                return result
            }
            let before = try await calls()
            let applied = try await store.apply(
                F.notification([F.subscription("t2", chain: "o1", from: 30, to: 60)], on: 30), app: app,
                now: F.day(30))
            #expect(applied.newEntries == 1)

            let distributed = try await pool.query(
                """
                SELECT c.relname::text FROM pg_dist_partition d JOIN pg_class c ON c.oid = d.logicalrelid
                WHERE d.partmethod = 'h'
                """
            ).map { try $0.decode(String.self, at: 0) }
            #expect(distributed.contains("webhook_account_sequences") && distributed.contains("chains"))
            var routed: [String] = []
            var everyShard: [String] = []
            for row in try await pool.query(recorded) {
                let key = try row.decode(String.self, at: 0)
                guard try row.decode(Int64.self, at: 1) > before[key] ?? 0 else { continue }
                let query = try row.decode(String.self, at: 2)
                let words = Set(query.split { !($0.isLetter || $0.isNumber || $0 == "_") }.map(String.init))
                guard distributed.contains(where: words.contains) else { continue }
                if try row.decode(String?.self, at: 3) == nil {
                    everyShard.append(String(query.prefix(200)))
                } else {
                    routed.append(query)
                }
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
}
