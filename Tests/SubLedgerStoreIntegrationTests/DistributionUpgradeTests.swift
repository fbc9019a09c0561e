import CatalogFile
import Foundation
import LedgerTestSupport
import PostgresLibPQ
import SubLedgerCore
import SubLedgerTestSupport
import Testing

@testable import SubLedgerStore

/// The Citus step of `schema.sql` upgrades a database filled by the schema before it: every row stays, byte for
/// byte, the keys and constraints become those of a fresh database, and the ledger goes on working on it.
///
/// The database is filled through the real ledger path (two apps; purchases, renewals, upgrades, refunds and their
/// reversals, transfers, Family Sharing, consumables, orders, stored receipts and notifications, webhook events
/// with an endpoint's deliveries, consents), then taken back to the schema before the step by the step's inverse,
/// which must give exactly the constraints and indexes of a database migrated without the step (so the rows were
/// valid under the old keys and foreign keys), and migrated again.
@Suite struct DistributionUpgradeTests {
    private typealias F = LedgerFixtures

    /// The Citus step, found by its name so the lead can renumber it.
    static func citusStep(_ script: SchemaScript) throws -> SchemaScript.Step {
        try #require(script.steps.first { $0.name.hasPrefix("citus:") })
    }

    /// What the Citus step changes, undone: the keys, foreign keys and indexes of the schema before it.
    static let inverseOfTheCitusStep = """
        ALTER TABLE transactions DROP CONSTRAINT transactions_pkey;
        DROP INDEX index_transactions_on_app_id_and_transaction_id;
        ALTER TABLE transactions ADD CONSTRAINT transactions_pkey PRIMARY KEY (app_id, environment, transaction_id),
            ADD CONSTRAINT transactions_app_id_account_id_fkey FOREIGN KEY (app_id, account_id)
                REFERENCES accounts (app_id, account_id);
        ALTER TABLE ownership_bindings DROP CONSTRAINT ownership_bindings_pkey;
        ALTER TABLE ownership_bindings ADD CONSTRAINT ownership_bindings_pkey PRIMARY KEY (binding_id),
            ADD CONSTRAINT ownership_bindings_app_id_environment_original_transaction__key
                UNIQUE (app_id, environment, original_transaction_id, sequence),
            ADD CONSTRAINT ownership_bindings_app_id_account_id_fkey FOREIGN KEY (app_id, account_id)
                REFERENCES accounts (app_id, account_id);
        ALTER TABLE chain_state_changes DROP CONSTRAINT chain_state_changes_pkey;
        ALTER TABLE chain_state_changes ADD CONSTRAINT chain_state_changes_pkey PRIMARY KEY (change_id);
        CREATE INDEX index_chain_state_changes_on_chain
            ON chain_state_changes (app_id, environment, original_transaction_id, change_id);
        ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_pkey, DROP CONSTRAINT ledger_entries_idempotency_key_key;
        ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_pkey PRIMARY KEY (entry_id),
            ADD CONSTRAINT ledger_entries_app_id_idempotency_key_key UNIQUE (app_id, idempotency_key),
            ADD CONSTRAINT ledger_entries_app_id_account_id_fkey FOREIGN KEY (app_id, account_id)
                REFERENCES accounts (app_id, account_id),
            ADD CONSTRAINT ledger_entries_receipt_id_fkey FOREIGN KEY (receipt_id) REFERENCES receipts (receipt_id),
            ADD CONSTRAINT ledger_entries_notification_row_id_fkey FOREIGN KEY (notification_row_id)
                REFERENCES notifications (notification_row_id);
        CREATE INDEX index_ledger_entries_on_original_transaction_id
            ON ledger_entries (app_id, environment, original_transaction_id, entry_id);
        ALTER TABLE chains ADD CONSTRAINT chains_app_id_owner_account_id_fkey FOREIGN KEY (app_id, owner_account_id)
                REFERENCES accounts (app_id, account_id),
            ADD CONSTRAINT chains_last_receipt_id_fkey FOREIGN KEY (last_receipt_id) REFERENCES receipts (receipt_id);
        ALTER TABLE consumption_consents DROP CONSTRAINT consumption_consents_pkey;
        ALTER TABLE consumption_consents ADD CONSTRAINT consumption_consents_pkey PRIMARY KEY (consent_id);
        ALTER TABLE consumption_usage_reports DROP CONSTRAINT consumption_usage_reports_pkey;
        ALTER TABLE consumption_usage_reports ADD CONSTRAINT consumption_usage_reports_pkey PRIMARY KEY (usage_id);
        ALTER TABLE receipts ADD CONSTRAINT receipts_app_id_account_id_fkey FOREIGN KEY (app_id, account_id)
            REFERENCES accounts (app_id, account_id);
        ALTER TABLE orders ADD CONSTRAINT orders_app_id_account_id_fkey FOREIGN KEY (app_id, account_id)
            REFERENCES accounts (app_id, account_id);
        """

    /// The comments the step gives, taken away (tables of later steps keep theirs).
    static func inverseOfTheComments(of step: SchemaScript.Step) throws -> String {
        let expression = try NSRegularExpression(pattern: #"COMMENT ON TABLE ([a-z_]+) IS"#)
        let sql = step.sql
        let tables = expression.matches(in: sql, range: NSRange(sql.startIndex..., in: sql)).compactMap { match in
            Range(match.range(at: 1), in: sql).map { String(sql[$0]) }
        }
        return tables.map { "COMMENT ON TABLE \($0) IS NULL;" }.joined(separator: "\n")
    }

    /// The schema's keys, constraints, indexes and table comments, the schema's name left out.
    static func shape(_ pool: PostgresPool) async throws -> [String] {
        let schema = try await pool.query("SELECT current_schema()::text").single().decode(String.self, at: 0)
        let rows = try await pool.query(
            """
            SELECT conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid) FROM pg_constraint
            WHERE connamespace = current_schema()::regnamespace AND contype IN ('p', 'u', 'f', 'x', 'c')
            UNION ALL
            SELECT indexdef FROM pg_indexes WHERE schemaname = current_schema()
            UNION ALL
            SELECT c.relname || ' comment ' || coalesce(obj_description(c.oid, 'pg_class'), '-') FROM pg_class c
            WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r'
            ORDER BY 1
            """)
        return try rows.map { try $0.decode(String.self, at: 0).replacingOccurrences(of: schema + ".", with: "") }
    }

    /// Every table's row count and a digest of all its rows (`schema_migrations` aside).
    static func contents(_ pool: PostgresPool) async throws -> [String: String] {
        let tables = try await pool.query(
            """
            SELECT relname FROM pg_class WHERE relnamespace = current_schema()::regnamespace AND relkind = 'r'
              AND relname <> 'schema_migrations'
            """
        ).map { try $0.decode(String.self, at: 0) }
        var contents: [String: String] = [:]
        for table in tables {
            // `table` is a name the catalog gave, quoted: a table name cannot be a parameter.
            let name = try PostgresConnection.quoteIdentifier(table)
            let row = try await pool.query(
                PostgresQuery(
                    unsafeSQL:
                        "SELECT count(*)::text || ' ' || coalesce(md5(string_agg(t::text, E'\\n' ORDER BY t::text)), '-') FROM \(name) t"
                )
            ).single()
            contents[table] = try row.decode(String.self, at: 0)
        }
        return contents
    }

    @Test func upgradingAFilledDatabaseKeepsEveryRowAndTheLedgerWorks() async throws {
        let migrator = try Migrator.bundled(logger: TestDatabase.logger)
        let step = try Self.citusStep(migrator.script)
        var before = migrator.script
        before.steps.removeAll { $0.version == step.version }
        let oldShape = try await TestDatabase.withSchema { _, _, pool in
            try await Migrator(script: before, logger: TestDatabase.logger).migrate(pool)
            return try await Self.shape(pool)
        }
        let newShape = try await TestDatabase.withSchema { _, _, pool in
            try await migrator.migrate(pool)
            return try await Self.shape(pool)
        }
        #expect(oldShape != newShape)

        try await TestDatabase.withSchema(maxConnections: 4) { _, _, pool in
            try await migrator.migrate(pool)
            let (store, readModelApp, ledgerApp, history) = try await Self.fill(pool)
            let filled = try await Self.contents(pool)
            for table in [
                "apps", "accounts", "chains", "transactions", "ownership_bindings", "chain_state_changes",
                "ledger_entries", "account_entitlement_periods", "webhook_events", "webhook_deliveries",
                "webhook_account_sequences", "webhook_clock_moments", "receipts", "notifications", "orders",
                "consumption_consents", "consumption_usage_reports",
            ] {
                #expect(filled[table]?.hasPrefix("0 ") == false, "\(table) is empty: \(filled[table] ?? "missing")")
            }
            let transfers = try await pool.query("SELECT count(*) FROM ownership_bindings WHERE sequence > 0")
                .single().decode(Int64.self, at: 0)
            #expect(transfers > 2)

            // Back to the schema before the step, as an older SubLedger left it.
            try await pool.execute(script: Self.inverseOfTheCitusStep + "\n" + Self.inverseOfTheComments(of: step))
            try await pool.query("DELETE FROM schema_migrations WHERE version = \(step.version)")
            #expect(try await Self.shape(pool) == oldShape)
            #expect(try await Self.contents(pool) == filled)

            let report = try await migrator.migrate(pool)
            #expect(report.applied == [step.version])
            #expect(try await Self.shape(pool) == newShape)
            #expect(try await Self.contents(pool) == filled)

            // The ledger on the upgraded database: every read agrees with the chains, a replay adds nothing,
            // new inputs apply.
            let agreement = try await EntitlementReadModelAgreementTests.compare(
                store, app: readModelApp, accounts: history.accounts, extraInstants: history.instants)
            #expect(agreement.disagreements.isEmpty, "\(agreement.disagreements.prefix(3))")
            #expect(agreement.checked > 100)
            // Every entry recorded before the upgrade is refused as a repeat by the new idempotency key.
            var recorded: [LedgerEntry] = []
            for account in history.accounts { recorded += try await store.entries(for: account, app: readModelApp) }
            #expect(recorded.count > 20)
            let entries = recorded
            let reinserted = try await pool.transaction { connection in
                try EntryRows.insert(
                    entries, appID: readModelApp.appID, reference: .none, linking: !readModelApp.onCitus,
                    on: connection)
            }
            #expect(reinserted == 0)
            let lastInput = F.notification(
                [F.subscription("t3", chain: "o1", from: 40, to: 70, refundedOn: 45)], on: 45)
            #expect(try await store.apply(lastInput, app: ledgerApp, now: F.day(45)).newEntries == 0)
            let alice = F.account("alice")
            let renewal = try await store.apply(
                F.receipt(by: alice, [F.subscription("u1", chain: "fresh", from: 100, to: 130)], on: 100),
                app: ledgerApp, now: F.day(100))
            #expect(renewal.newEntries == 1)
            #expect(
                try await store.entitlements(for: alice, app: ledgerApp, at: F.day(110)).first?.expiresAt == F.day(130))
            let again = try await store.apply(
                F.receipt(by: alice, [F.subscription("u1", chain: "fresh", from: 100, to: 130)], on: 101),
                app: ledgerApp, now: F.day(101))
            #expect(again.newEntries == 0)
            #expect(try await DistributionRules.read(pool).violations().isEmpty)
        }
    }

    /// Two apps' worth of ledger, written by the store as the service writes it.
    static func fill(_ pool: PostgresPool) async throws -> (LedgerStore, StoredApp, StoredApp, RandomHistory) {
        let store = LedgerStore(pool: pool)
        let catalogStore = CatalogStore(pool: pool, secretKeys: F.secretKeys)
        let (catalog, secrets) = try CatalogFile.read(EntitlementReadModelAgreementTests.catalogYAML)
        try await catalogStore.applyCatalog(catalog, secrets: secrets)
        let readModelApp = try #require(
            try await catalogStore.app(bundleID: EntitlementReadModelAgreementTests.bundleID))
        let ledgerApp = try await F.app(on: store.pool)
        _ = try await WebhookEndpointStore(pool: pool, secretKeys: F.secretKeys).add(
            .init(
                bundleID: F.bundleID, url: "https://hooks.example.com/subledger", description: nil, eventTypes: [],
                environments: [], allowPrivateNetwork: false),
            endpointID: UUID(), secret: "whsec_upgrade")

        var rng = SplitMix64(seed: 0xC170_5000)
        let history = RandomHistory(index: 0, chains: 30, using: &rng)
        for (at, input) in history.inputs {
            try await store.apply(input, app: readModelApp, now: at)
        }
        try await DistributionRulesTests.applyEveryKindOfInput(store, app: ledgerApp)
        let consumption = ConsumptionStore(pool: pool)
        _ = try await consumption.recordConsent(
            ConsumptionConsent(consented: true, at: F.day(43)), account: F.account("alice"), app: ledgerApp)
        _ = try await consumption.recordUsage(
            ConsumptionUsage(consumedMilliunits: 500),
            transactionID: "k1", account: F.account("alice"), app: ledgerApp)
        return (store, readModelApp, ledgerApp, history)
    }
}
