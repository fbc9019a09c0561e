import Foundation
import LedgerTestSupport
import PostgresLibPQ
import SubLedgerCore
import SubLedgerTestSupport
import Testing

@testable import SubLedgerStore

/// An erasure's cost does not grow with the ledger (docs/guides/accounts.md, "Erasing an account"): on a ledger of a few
/// thousand chains, `account_erase` reads every table it touches through an index. Counted by PostgreSQL's statistics
/// (rows read by sequential scans, per table of the test's schema), not by time.
@Suite struct AccountErasureLookupTests {
    typealias F = LedgerFixtures
    static let chains = 3_000

    /// One account of one chain each (a receipt, three entries, a binding, three webhook events and their sequence),
    /// as scripts/erasure-scale fills its ledger, linked as an upgrade links them.
    static let fill = """
        INSERT INTO accounts (app_id, account_id) SELECT $1, 'acct-' || g FROM generate_series(1, $2) g;
        INSERT INTO chains (app_id, environment, original_transaction_id, owner_account_id, product_id, product_type,
            state, expires_at, snapshot)
        SELECT $1, 'Production', 'chain-acct-' || g, 'acct-' || g, 'pro.monthly', 'Auto-Renewable Subscription',
            'active', timestamptz '2026-04-01', jsonb_build_object('account', 'acct-' || g)
        FROM generate_series(1, $2) g;
        INSERT INTO ownership_bindings (app_id, environment, original_transaction_id, sequence, account_id,
            from_account_id, started_at, started_reason)
        SELECT $1, 'Production', 'chain-acct-' || g, 0, 'acct-' || g, NULL, timestamptz '2026-01-01', 'purchase'
        FROM generate_series(1, $2) g;
        WITH r AS (
            INSERT INTO receipts (app_id, account_id, kind, body, body_sha256, status, environment)
            SELECT $1, 'acct-' || g, 'app_receipt', 'receipt-body-' || g,
                sha256(convert_to('receipt-body-' || g, 'UTF8')), 'applied', 'Production'
            FROM generate_series(1, $2) g
            RETURNING receipt_id, account_id)
        INSERT INTO ledger_entries (app_id, idempotency_key, kind, account_id, environment,
            original_transaction_id, transaction_id, product_id, entitlement_ids, effective_at, period_end, reason,
            receipt_id)
        SELECT $1, k.kind || ':' || r.account_id || ':' || k.n, k.kind, r.account_id, 'Production',
            'chain-' || r.account_id, 'tx-' || r.account_id || '-' || k.n, 'pro.monthly', '{pro}',
            timestamptz '2026-01-01' + k.n * interval '30 days', timestamptz '2026-01-31' + k.n * interval '30 days',
            CASE k.n WHEN 0 THEN 'purchase' ELSE 'renewal' END, r.receipt_id
        FROM r CROSS JOIN (VALUES (0, 'grant'), (1, 'extend'), (2, 'extend')) AS k(n, kind)
        ORDER BY r.receipt_id, k.n;
        INSERT INTO webhook_events (event_id, app_id, environment, account_id, account_sequence, event_type,
            occurred_at, cause_kind, cause_id, idempotency_key, body)
        SELECT gen_random_uuid(), $1, 'Production', 'acct-' || g, n, 'entitlement.extended', now(), 'notification',
            NULL, 'entitlement.extended|Production|acct-' || g || '|' || n,
            jsonb_build_object('type', 'entitlement.extended', 'account_id', 'acct-' || g, 'sequence', n)::text
        FROM generate_series(1, $2) g CROSS JOIN generate_series(1, 3) n;
        INSERT INTO webhook_account_sequences (app_id, environment, account_id, last_sequence)
        SELECT $1, 'Production', 'acct-' || g, 3 FROM generate_series(1, $2) g;
        """

    @Test(.disabled(if: TestDatabase.isCitus, "the statistics of a distributed table are its shards', on the workers"))
    func anErasureReadsEveryTableThroughAnIndex() async throws {
        try await TestDatabase.withSchema(template: .ledger) { _, _, pool in
            try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
            let app = try await F.app(on: pool)
            try await pool.withConnection { connection in
                let statements = Self.fill.split(separator: ";\n").map { String($0) }
                for statement in statements
                where !statement.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty {
                    _ = try connection.query(
                        PostgresQuery(
                            unsafeSQL: statement,
                            parameters: [app.appID.postgresValue, Int64(Self.chains).postgresValue]))
                }
                _ = try connection.query("SELECT ledger_chain_backfill()")
                _ = try connection.query("ANALYZE")
                // Rows each table of this schema has had read by sequential scans so far (this connection's counts
                // flushed first).
                func sequentiallyRead() throws -> [String: Int64] {
                    _ = try connection.query("SELECT pg_stat_force_next_flush()")
                    _ = try connection.query("SELECT pg_stat_clear_snapshot()")
                    var read: [String: Int64] = [:]
                    for row in try connection.query(
                        """
                        SELECT relname, coalesce(seq_tup_read, 0) FROM pg_stat_user_tables
                        WHERE schemaname = current_schema()
                        """)
                    {
                        read[try row.decode(String.self, at: 0)] = try row.decode(Int64.self, at: 1)
                    }
                    return read
                }
                let before = try sequentiallyRead()
                let summary = try connection.query(
                    """
                    SELECT account_erase(\(app.appID), ARRAY['acct-1500'], ARRAY[sha256('keyed'::bytea)],
                        sha256('plain'::bytea), 'lookup-test', now())::text
                    """
                ).single().decode(String.self, at: 0)
                #expect(summary.contains("\"ledger_entries\": 3"), "\(summary)")
                let after = try sequentiallyRead()
                // A table read whole is one of the ledger's size (thousands of rows); the few rows of the apps and
                // the erasures' own tables may be read whole.
                let scanned = after.filter { $0.value - (before[$0.key] ?? 0) > 100 }.keys.sorted()
                #expect(scanned == [], "tables read whole by the erasure: \(scanned)")
            }
        }
    }
}
