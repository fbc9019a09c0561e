import Foundation
import LedgerTestSupport
import PostgresLibPQ
import SubLedgerCore
import SubLedgerTestSupport
import Testing

@testable import SubLedgerStore

/// The schema is ready for Citus (docs/guides/scale-out.md, "Distributing with Citus"): every table says how it is
/// placed, every key of a distributed table includes its distribution column, every foreign key is one Citus can
/// check on one node, and every statement the apply sends filters each distributed table by its column.
@Suite struct DistributionRulesTests {
    private typealias F = LedgerFixtures

    /// The statements of the apply known not to route to one node, and why that is acceptable (docs/guides/operate.md
    /// lists them too). Matched by their exact text.
    static let knownMultiShardStatements: [String: String] = [
        WebhookOutbox.ownedChains(of: "{}", appID: 0, except: []).sql:
            "the same read finds an account's chains through ownership_bindings by account (joined with chains on "
            + "the distribution column): a read of every chain shard, only when an apply has events to write"
    ]

    @Test func theMigratedSchemaFollowsCitussRules() async throws {
        try await TestDatabase.withSchema(template: .ledger) { _, _, pool in
            try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
            let rules = try await DistributionRules.read(pool)
            let violations = rules.violations()
            #expect(violations.isEmpty, "\(violations.joined(separator: "\n"))")
            // The families the design names (one large app spreads by subscription and by account).
            for table in ["chains", "transactions", "ownership_bindings", "chain_state_changes", "ledger_entries"] {
                #expect(rules.placements[table] == .distributed(column: "original_transaction_id"), "\(table)")
            }
            for table in ["accounts", "account_entitlement_periods", "account_entitlement_backfill"] {
                #expect(rules.placements[table] == .distributed(column: "account_id"), "\(table)")
            }
            #expect(rules.placements["apps"] == .reference)
            #expect(rules.placements["products"] == .reference)
            #expect(rules.tables.count > 30)
            #expect(rules.uniqueKeys.count > 30 && rules.foreignKeys.count > 20)
        }
    }

    /// The rules fail a schema that breaks them: an unclassified table, a key without the distribution column,
    /// a nullable distribution column, a foreign key across families and one from a reference table to a
    /// distributed one.
    @Test func aTableThatBreaksTheRulesIsReported() async throws {
        try await TestDatabase.withSchema(template: .ledger) { _, _, pool in
            try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
            try await pool.execute(
                script: """
                    CREATE TABLE unplaced (x int);
                    CREATE TABLE chain_notes (
                        note_id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
                        app_id bigint NOT NULL, environment text NOT NULL, original_transaction_id text NOT NULL,
                        account_id text,
                        FOREIGN KEY (app_id, account_id) REFERENCES accounts (app_id, account_id));
                    COMMENT ON TABLE chain_notes IS 'citus: distributed by original_transaction_id';
                    CREATE TABLE account_notes (app_id bigint NOT NULL, account_id text, body text);
                    CREATE UNIQUE INDEX index_account_notes_on_body ON account_notes (app_id, body);
                    COMMENT ON TABLE account_notes IS 'citus: distributed by account_id';
                    CREATE TABLE catalog_notes (app_id bigint NOT NULL, account_id text NOT NULL,
                        FOREIGN KEY (app_id, account_id) REFERENCES accounts (app_id, account_id));
                    COMMENT ON TABLE catalog_notes IS 'citus: reference';
                    """)
            let violations = try await DistributionRules.read(pool).violations()
            let expected = [
                "table unplaced is not classified",
                "unique index chain_notes_pkey of chain_notes (note_id) leaves out its distribution column original_transaction_id",
                "foreign key chain_notes_app_id_account_id_fkey from chain_notes (distributed by original_transaction_id) "
                    + "to accounts (distributed by account_id): the tables are distributed by different columns",
                "table account_notes is distributed by account_id, which may be NULL",
                "unique index index_account_notes_on_body of account_notes (app_id, body) leaves out its distribution column account_id",
                "foreign key catalog_notes_app_id_account_id_fkey from catalog_notes (reference) to accounts "
                    + "(distributed by account_id): Citus cannot check it",
            ]
            for sentence in expected {
                #expect(violations.contains { $0.hasPrefix(sentence) }, "missing: \(sentence)\nfound: \(violations)")
            }
            #expect(violations.count == expected.count, "\(violations)")
        }
    }

    /// Every statement sent while applying inputs of every kind (a stored receipt, a receipt, a notification
    /// received and stored, an order's purchase, a transfer, refunds) either filters each distributed table it
    /// touches by that table's distribution column, or is a known exception. The statements are read back from
    /// the server (`pg_prepared_statements` of the one connection the applies used): every statement of the
    /// apply is a `PostgresStatement`, prepared once per connection.
    @Test func everyStatementOfTheApplyRoutesToTheNodeOfItsDistributionValues() async throws {
        try await TestDatabase.withSchema(template: .ledger) { _, configuration, pool in
            try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
            let app = try await F.app(on: pool)
            var single = configuration
            single.maxConnections = 1
            let recorded = PostgresPool(configuration: single, logger: TestDatabase.logger)
            let store = LedgerStore(pool: recorded)
            do {
                try await Self.applyEveryKindOfInput(store, app: app)
                let statements = try await recorded.query("SELECT statement FROM pg_prepared_statements")
                    .map { try $0.decode(String.self, at: 0) }
                await recorded.shutdown()
                let rules = try await DistributionRules.read(pool)
                // The statements' text does not depend on their values: built with placeholder values, each is
                // recorded exactly, or (written inline in the apply) by how it begins.
                let key = ChainKey(environment: .production, chainID: "o")
                for expected in [
                    ChainRows.loadForUpdate(key, appID: 0).sql,
                    InputRows.markSubmissionApplied(0, environment: .production).sql,
                    InputRows.markNotificationApplied(0, environment: .production).sql,
                    AccountRows.ensure(try AccountID("a"), appID: 0).sql, AccountRows.named("a", appID: 0).sql,
                    OrderRows.candidates(orderIDs: "[]", submitter: nil, appID: 0).sql,
                    OrderRows.fulfil("o", by: nil, environment: .production, at: F.day(0), appID: 0).sql,
                    WebhookOutbox.insert(
                        WebhookOutbox.EventRow(
                            eventID: "", environment: .production, account: nil, accountSequence: nil, type: "",
                            occurredAt: F.day(0), causeKind: "", causeID: nil, idempotencyKey: "", body: ""),
                        appID: 0
                    ).sql,
                    InputRows.insert(
                        .init(
                            notification: ServerNotification(
                                notificationID: "", version: .v2, notificationType: "", bundleID: "",
                                environment: .production, signedDate: F.day(0)),
                            body: ""),
                        appID: 0
                    ).sql,
                    WebhookOutbox.recordedKeys(of: [], appID: 0).sql,
                    WebhookOutbox.takeNumbers(
                        1, of: WebhookOutbox.Stream(environment: .production, account: try AccountID("a")), appID: 0
                    ).sql,
                    EntitlementPeriodRows.read(try AccountID("a"), appID: 0, at: F.day(0)).sql,
                ] {
                    #expect(statements.contains(expected), "not recorded: \(expected.prefix(80))")
                }
                for beginning in [
                    "INSERT INTO chains (", "INSERT INTO transactions (", "INSERT INTO ownership_bindings (",
                    "UPDATE ownership_bindings SET ended_at",
                    // A ledger entry's insert, which links it in its chain's hash chain (schema step 62).
                    "WITH entry AS (\n    INSERT INTO ledger_entries (",
                    // The input's link in its chain.
                    "WITH head AS (\n    SELECT h.seq, h.last_entry_id, h.hash FROM ledger_chain_heads h",
                    "DELETE FROM account_entitlement_periods", "INSERT INTO account_entitlement_periods (",
                ] {
                    #expect(
                        statements.contains { $0.hasPrefix(beginning) },
                        "not recorded: a statement beginning \(beginning)")
                }
                var broken: [String] = []
                for statement in statements where Self.knownMultiShardStatements[statement] == nil {
                    for violation in rules.statementViolations(statement) {
                        broken.append("\(violation): \(statement.prefix(160))")
                    }
                }
                #expect(broken.isEmpty, "\(broken.joined(separator: "\n"))")
                // A known exception is still one (else it leaves the list).
                for exception in Self.knownMultiShardStatements.keys {
                    #expect(!rules.statementViolations(exception).isEmpty)
                }
            } catch {
                await recorded.shutdown()
                throw error
            }
        }
    }

    /// The statement check fails statements that would go to every shard.
    @Test func aStatementWithoutItsDistributionColumnIsReported() async throws {
        try await TestDatabase.withSchema(template: .ledger) { _, _, pool in
            try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
            let rules = try await DistributionRules.read(pool)
            #expect(
                rules.statementViolations("SELECT * FROM chains WHERE app_id = $1 AND environment = $2")
                    == ["touches chains without filtering by original_transaction_id"])
            #expect(
                rules.statementViolations("UPDATE account_entitlement_periods SET state = NULL WHERE app_id = $1")
                    == ["touches account_entitlement_periods without filtering by account_id"])
            #expect(
                rules.statementViolations("INSERT INTO ledger_entries (app_id, idempotency_key) VALUES ($1, $2)")
                    == ["touches ledger_entries without filtering by original_transaction_id"])
            #expect(
                rules.statementViolations(
                    "SELECT * FROM chains t WHERE t.app_id = $1 AND t.original_transaction_id = ANY ($2::text[])"
                ).isEmpty)
            #expect(rules.statementViolations("INSERT INTO accounts (app_id, account_id) VALUES ($1, $2)").isEmpty)
            #expect(rules.statementViolations("UPDATE receipts SET status = 'applied' WHERE receipt_id = $1").isEmpty)
        }
    }

    /// Inputs of every kind the apply takes, for one app: a stored receipt, a notification received (stored and
    /// applied in one go), an order fulfilled by its purchase, a transfer to a second buyer, refunds, a notification
    /// stored first and applied later.
    static func applyEveryKindOfInput(_ store: LedgerStore, app: StoredApp) async throws {
        let alice = F.account("alice")
        let bob = F.account("bob")
        let receiptID = try await store.storeSubmission(
            kind: .appReceipt, body: "MIIT...base64", account: alice, app: app)
        let purchase = F.subscription("t1", chain: "o1", from: 0, to: 30)
        try await store.apply(
            F.receipt(by: alice, [purchase], renewals: [F.renewal(chain: "o1", willAutoRenew: true, on: 0)], on: 0),
            app: app, reference: .submission(receiptID), now: F.day(0))
        let stopped = ServerNotification(
            notificationID: "n-stop", version: .v2, notificationType: "DID_CHANGE_RENEWAL_STATUS", bundleID: F.bundleID,
            environment: .production, signedDate: F.day(10), transaction: purchase,
            renewalInfo: F.renewal(chain: "o1", willAutoRenew: false, on: 10, intent: 1))
        _ = try await store.receive(
            stopped, body: "{}", input: LedgerInput(notification: stopped), app: app, now: F.day(10))
        let bobsPurchase = F.subscription("t3", chain: "o1", from: 40, to: 70)
        try await store.apply(
            F.receipt(
                by: bob, [purchase, bobsPurchase], renewals: [F.renewal(chain: "o1", willAutoRenew: true, on: 40)],
                on: 40),
            app: app, now: F.day(40))
        let order = try await store.createOrder(account: alice, productID: "coins.100", app: app, now: F.day(41))
        let coins = F.consumable("k1", on: 41, token: order.id.rawValue)
        try await store.apply(F.receipt(by: alice, [coins], on: 41), app: app, now: F.day(41))
        try await store.apply(
            F.notification([F.consumable("k1", on: 41, refundedOn: 42)], on: 42), app: app, now: F.day(42))
        try await store.apply(
            F.notification([F.subscription("t3", chain: "o1", from: 40, to: 70, refundedOn: 45)], on: 45),
            app: app, now: F.day(45))
        // A notification stored first and applied later (the renewal job's way).
        let resumed = ServerNotification(
            notificationID: "n-resume", version: .v2, notificationType: "DID_CHANGE_RENEWAL_STATUS",
            bundleID: F.bundleID, environment: .production, signedDate: F.day(50), transaction: bobsPurchase,
            renewalInfo: F.renewal(chain: "o1", willAutoRenew: true, on: 50))
        let stored = try await store.storeNotification(resumed, body: "{}", app: app)
        _ = try await store.applyStoredNotification(
            stored.id, LedgerInput(notification: resumed), app: app, now: F.day(50))
    }
}
