import Foundation
import LedgerTestSupport
import PostgresLibPQ
import SubLedgerCore
import SubLedgerTestSupport
import Testing

@testable import SubLedgerStore

/// Measurements of the ledger's hash chain, off unless asked for (they take minutes, and what they print is a
/// measurement, not an assertion):
///
///     SUBLEDGER_CHAIN_SCALE=100000 scripts/with-postgres swift test --skip-build --filter LedgerChainScaleTests
///     SUBLEDGER_CHAIN_APPLY_ROUNDS=20 scripts/with-postgres swift test --skip-build --filter LedgerChainScaleTests
///
/// The first links a ledger of that many chains as the upgrade does (`ledger_chain_backfill()`) and verifies it;
/// the second times renewal notifications applied with the chain linked by `ledger_chain_link` (as an apply on a
/// Citus cluster links it) and with that function reduced to a no-op, interleaved round by round on one database
/// (docs/guides/operate.md, "Verifying the ledger"). On a single PostgreSQL an apply links in the statements that
/// write its rows (schema step 62), which cannot be left out: `scripts/bench` compares builds for that.
@Suite struct LedgerChainScaleTests {
    typealias F = LedgerFixtures

    static func setting(_ name: String) -> Int? {
        ProcessInfo.processInfo.environment[name].flatMap { Int($0) }.flatMap { $0 > 0 ? $0 : nil }
    }

    static func seconds(_ duration: Duration) -> String {
        let components = duration.components
        return String(format: "%.2f s", Double(components.seconds) + Double(components.attoseconds) / 1e18)
    }

    @Test(.enabled(if: setting("SUBLEDGER_CHAIN_SCALE") != nil))
    func aLargeLedgerIsLinkedAndVerified() async throws {
        let chains = try #require(Self.setting("SUBLEDGER_CHAIN_SCALE"))
        try await TestDatabase.withSchema(template: .ledger) { _, _, pool in
            try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
            let store = LedgerStore(pool: pool)
            let app = try await F.app(on: store.pool)
            // Per chain: the receipt that bought it, its purchase and two renewals (four links).
            try await pool.execute(
                script: """
                    INSERT INTO accounts (app_id, account_id)
                    SELECT \(app.appID), 'acct-' || g FROM generate_series(1, \(chains)) g;
                    WITH r AS (
                        INSERT INTO receipts (app_id, account_id, kind, body, body_sha256, status, environment)
                        SELECT \(app.appID), 'acct-' || g, 'app_receipt', 'receipt-body-' || g,
                            sha256(convert_to('receipt-body-' || g, 'UTF8')), 'applied', 'Production'
                        FROM generate_series(1, \(chains)) g
                        RETURNING receipt_id, account_id)
                    INSERT INTO ledger_entries (app_id, idempotency_key, kind, account_id, environment,
                        original_transaction_id, transaction_id, product_id, entitlement_ids, effective_at, period_end,
                        reason, receipt_id)
                    SELECT \(app.appID), k.kind || ':' || r.account_id || ':' || k.n, k.kind, r.account_id, 'Production',
                        'chain-' || r.account_id, 'tx-' || r.account_id || '-' || k.n, 'pro.monthly', '{pro}',
                        timestamptz '2026-01-01' + k.n * interval '30 days',
                        timestamptz '2026-01-31' + k.n * interval '30 days',
                        CASE k.n WHEN 0 THEN 'purchase' ELSE 'renewal' END, r.receipt_id
                    FROM r CROSS JOIN (VALUES (0, 'grant'), (1, 'extend'), (2, 'extend')) AS k(n, kind)
                    ORDER BY r.receipt_id, k.n;
                    -- Not the chain's tables: as the upgrade finds them, never analyzed. Analyzed empty, the
                    -- backfill's generic plans scan them whole on every link, and the linking grows quadratic.
                    ANALYZE accounts, receipts, ledger_entries;
                    """)
            let clock = ContinuousClock()
            var linked: Int64 = 0
            let linking = try await clock.measure {
                linked = try await pool.query("SELECT ledger_chain_backfill()").single().decode(Int64.self, at: 0)
            }
            #expect(linked == Int64(chains) * 4)
            var result = LedgerStore.LedgerChainVerification()
            let verifying = try await clock.measure {
                result = try await store.verifyLedgerChain(appID: nil, since: nil)
            }
            #expect(result.isIntact)
            #expect(result.chains == chains)
            #expect(result.links == chains * 4)
            print(
                "ledger chain at \(chains) chains (\(result.links) links): linked as the upgrade links in "
                    + "\(Self.seconds(linking)), verified in \(Self.seconds(verifying))")
        }
    }

    @Test(.enabled(if: setting("SUBLEDGER_CHAIN_APPLY_ROUNDS") != nil))
    func applyCostWithAndWithoutTheChain() async throws {
        let rounds = try #require(Self.setting("SUBLEDGER_CHAIN_APPLY_ROUNDS"))
        let perRound = Self.setting("SUBLEDGER_CHAIN_APPLY_CHAINS") ?? 50
        try await TestDatabase.withSchema(maxConnections: 1, template: .ledger) { _, _, pool in
            try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
            let store = LedgerStore(pool: pool)
            // Linked by `ledger_chain_link`, the function this swaps for a no-op.
            var app = try await F.app(on: store.pool)
            app.onCitus = true
            let real = try await pool.query(
                """
                SELECT pg_get_functiondef('ledger_chain_link(bigint, text, text, bigint, bigint, bigint)'::regprocedure)
                """
            ).single().decode(String.self, at: 0)
            let noop = """
                CREATE OR REPLACE FUNCTION ledger_chain_link(p_app_id bigint, p_environment text, p_chain text,
                    p_receipt_id bigint, p_notification_row_id bigint, p_through_entry_id bigint DEFAULT NULL)
                RETURNS integer LANGUAGE sql AS 'SELECT 0'
                """
            // Each mode has chains of its own, bought before anything is timed.
            for mode in ["with", "without"] {
                for chain in 0..<perRound {
                    let account = F.account("\(mode)-\(chain)")
                    try await store.apply(
                        F.receipt(
                            by: account,
                            [F.subscription("\(mode)-\(chain)-0", chain: "\(mode)-\(chain)", from: 0, to: 30)],
                            on: 0), app: app, now: F.day(0))
                }
            }
            let clock = ContinuousClock()
            var timings: [String: [Duration]] = ["with": [], "without": []]
            for round in 1...rounds {
                let order = round.isMultiple(of: 2) ? ["with", "without"] : ["without", "with"]
                for mode in order {
                    try await pool.execute(script: mode == "with" ? real : noop)
                    for chain in 0..<perRound {
                        let renewal = F.subscription(
                            "\(mode)-\(chain)-\(round)", chain: "\(mode)-\(chain)", from: round * 30,
                            to: round * 30 + 30)
                        let notification = ServerNotification(
                            notificationID: "\(mode)-\(chain)-\(round)", version: .v2, notificationType: "DID_RENEW",
                            bundleID: F.bundleID, environment: .production, signedDate: F.day(round * 30),
                            transaction: renewal,
                            renewalInfo: F.renewal(chain: "\(mode)-\(chain)", willAutoRenew: true, on: round * 30))
                        let elapsed = try await clock.measure {
                            _ = try await store.receive(
                                notification, body: #"{"signedPayload":"x"}"#,
                                input: LedgerInput(notification: notification), app: app, now: F.day(round * 30))
                        }
                        timings[mode, default: []].append(elapsed)
                    }
                }
            }
            try await pool.execute(script: real)
            func median(_ values: [Duration]) -> Duration { values.sorted()[values.count / 2] }
            let with = median(timings["with"] ?? [])
            let without = median(timings["without"] ?? [])
            let microseconds = { (d: Duration) in
                Double(d.components.seconds) * 1e6 + Double(d.components.attoseconds) / 1e12
            }
            print(
                String(
                    format:
                        "apply (store + apply of a renewal notification), median of %d each: with the chain %.0f µs, "
                        + "without %.0f µs, difference %.0f µs (%.1f%%)",
                    rounds * perRound, microseconds(with), microseconds(without),
                    microseconds(with) - microseconds(without),
                    (microseconds(with) / microseconds(without) - 1) * 100))
            #expect(timings["with"]?.count == rounds * perRound)
            let links = try await pool.query(
                "SELECT count(*) FROM ledger_chain_links WHERE original_transaction_id LIKE 'with-%' AND item_table = 'notifications'"
            ).single().decode(Int64.self, at: 0)
            #expect(links == Int64(rounds * perRound))
        }
    }
}
