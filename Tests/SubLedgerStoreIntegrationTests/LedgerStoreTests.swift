import CatalogFile
import LedgerTestSupport
import PostgresLibPQ
import SubLedgerCore
import SubLedgerTestSupport
import Testing

@testable import SubLedgerStore

/// The ledger against a real PostgreSQL: the rule, revocation, orders, exactly-once and concurrency.
@Suite struct LedgerStoreTests {
    typealias F = LedgerFixtures
    let alice = F.account("alice")
    let bob = F.account("bob")

    /// Runs `body` with a migrated schema, a store and the fixture app.
    func withLedger(_ body: (LedgerStore, StoredApp, PostgresPool) async throws -> Void) async throws {
        try await TestDatabase.withSchema(maxConnections: 8, template: .ledger) { _, _, pool in
            try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
            let store = LedgerStore(pool: pool)
            try await body(store, try await F.app(on: pool), pool)
        }
    }

    @Test func catalogIsStoredAndReadBack() async throws {
        try await withLedger { store, app, pool in
            #expect(app.sharedSecret == "s3cret")
            #expect(app.definition.appAppleID == 1_234_567_890)
            #expect(app.definition.product("premium.monthly")?.groupLevel == 1)
            let entitlements = try await pool.query(
                """
                SELECT entitlement_id FROM product_entitlements WHERE app_id = \(app.appID) AND product_id =
                    'premium.monthly' ORDER BY 1
                """)
            #expect(try entitlements.map { try $0.decode(String.self, at: 0) } == ["premium", "pro"])
            // Applying again changes nothing but keeps the secret when the file leaves it out.
            let catalogStore = CatalogStore(pool: pool, secretKeys: F.secretKeys)
            let (catalog, _) = try CatalogFile.read(F.catalogYAML)
            try await catalogStore.applyCatalog(catalog)
            #expect(try await catalogStore.app(bundleID: F.bundleID)?.sharedSecret == "s3cret")
        }
    }

    @Test(arguments: [
        ("apps: [{bundle_id: x, products: [{product_id: p, type: gadget}]}]", "unknown_product_type"),
        ("apps: [{bundle_id: x, products: [{product_id: p, type: consumable}]}]", "consumable_without_credits"),
        ("{\"apps\": [{\"products\": []}]}", "bundle_id"),
        ("apps: 3", "apps"),
    ])
    func anInvalidCatalogIsRefusedWithItsReason(text: String, reason: String) throws {
        #expect {
            try CatalogFile.read(text)
        } throws: { error in
            guard let error = error as? CatalogFileError else { return false }
            return error.description.hasPrefix("invalid_catalog: ") && error.message.contains(reason)
        }
    }

    /// Story 1 in PostgreSQL: A's renewal uploaded by B while A still auto-renews stays with A.
    @Test func renewalUploadedByAnotherAccountStaysWithTheOwnerWhoStillAutoRenews() async throws {
        try await withLedger { store, app, _ in
            let purchase = F.subscription("t1", chain: "o1", from: 0, to: 30)
            try await store.apply(
                F.receipt(by: alice, [purchase], renewals: [F.renewal(chain: "o1", willAutoRenew: true, on: 0)], on: 0),
                app: app, now: F.day(0))
            let renewal = F.subscription("t2", chain: "o1", from: 30, to: 60)
            let applied = try await store.apply(
                F.receipt(
                    by: bob, [purchase, renewal], renewals: [F.renewal(chain: "o1", willAutoRenew: true, on: 31)],
                    on: 31),
                app: app, now: F.day(31))

            #expect(
                applied.decision.transactionOutcomes.first { $0.transactionID == "t2" }?.result
                    == .belongsToAnotherAccount)
            #expect(try await store.ownerColumn(of: "o1", app: app) == "alice")
            #expect(try await store.entryAccounts(app: app)["extend:Production:t2"] == "alice")
            let aliceHas = try await store.entitlements(for: alice, app: app, at: F.day(45))
            #expect(aliceHas.map(\.entitlementID) == ["pro"])
            #expect(aliceHas.first?.expiresAt == F.day(60))
            #expect(try await store.entitlements(for: bob, app: app, at: F.day(45)).isEmpty)
        }
    }

    /// Story 2 in PostgreSQL: A stopped renewing, B bought on the same Apple ID → B; A's upload of B's renewal → B.
    @Test func chainMovesToTheNewBuyerWhenTheOwnerStoppedRenewing() async throws {
        try await withLedger { store, app, pool in
            let purchase = F.subscription("t1", chain: "o1", from: 0, to: 30)
            try await store.apply(
                F.receipt(by: alice, [purchase], renewals: [F.renewal(chain: "o1", willAutoRenew: true, on: 0)], on: 0),
                app: app, now: F.day(0))
            try await store.apply(
                F.notification([], renewals: [F.renewal(chain: "o1", willAutoRenew: false, on: 10, intent: 1)], on: 10),
                app: app, now: F.day(10))
            let bobsPurchase = F.subscription("t3", chain: "o1", from: 40, to: 70)
            try await store.apply(
                F.receipt(
                    by: bob, [purchase, bobsPurchase], renewals: [F.renewal(chain: "o1", willAutoRenew: true, on: 40)],
                    on: 40),
                app: app, now: F.day(40))
            let bobsRenewal = F.subscription("t4", chain: "o1", from: 70, to: 100)
            let uploaded = try await store.apply(
                F.receipt(
                    by: alice, [purchase, bobsPurchase, bobsRenewal],
                    renewals: [F.renewal(chain: "o1", willAutoRenew: true, on: 71)], on: 71),
                app: app, now: F.day(71))

            #expect(
                uploaded.decision.transactionOutcomes.first { $0.transactionID == "t4" }?.result
                    == .belongsToAnotherAccount)
            #expect(try await store.ownerColumn(of: "o1", app: app) == "bob")
            #expect(try await store.entitlements(for: bob, app: app, at: F.day(80)).first?.expiresAt == F.day(100))
            #expect(try await store.entitlements(for: alice, app: app, at: F.day(80)).isEmpty)
            // The binding history: alice's first claim, ended at the transfer; bob's current binding.
            let bindings = try await pool.query(
                """
                SELECT sequence, account_id, started_reason, ended_at IS NULL FROM ownership_bindings
                WHERE app_id = \(app.appID) ORDER BY sequence
                """)
            #expect(try bindings.map { try $0.decode(String.self, at: 1) } == ["alice", "bob"])
            #expect(
                try bindings.map { try $0.decode(String.self, at: 2) } == [
                    "first_claim", "owner_not_actively_auto_renewing",
                ])
            #expect(try bindings.map { try $0.decode(Bool.self, at: 3) } == [false, true])
            let transfers = try await store.entryAccounts(app: app).filter { $0.key.hasPrefix("transfer") }
            #expect(Set(transfers.values) == ["alice", "bob"])
        }
    }

    /// The account's record of its credit and debit entries (schema step 37, where its balance is read) holds what
    /// the ledger holds, entry for entry, a replay adds to neither, and the step fills it from a ledger written
    /// before it.
    @Test func theAccountsCreditEntriesAreItsLedgerCreditsAndDebits() async throws {
        let credits: PostgresQuery = """
            SELECT account_id || ' ' || idempotency_key || ' ' || credits FROM account_credit_entries ORDER BY 1
            """
        let ledger: PostgresQuery = """
            SELECT account_id || ' ' || idempotency_key || ' ' || CASE kind WHEN 'credit' THEN credits ELSE -credits END
            FROM ledger_entries WHERE kind IN ('credit', 'debit') ORDER BY 1
            """
        let consumables = F.receipt(
            by: alice,
            [F.consumable("c2", on: 5), F.consumable("c1", on: 3, refundedOn: 4), F.consumable("c3", on: 6)],
            on: 6)
        try await withLedger { store, app, pool in
            try await store.apply(consumables, app: app, now: F.day(6))
            try await store.apply(consumables, app: app, now: F.day(7))
            let mirrored = try await pool.query(credits).map { try $0.decode(String.self, at: 0) }
            #expect(mirrored.count == 4)  // three credits and the refund's debit
            #expect(mirrored == (try await pool.query(ledger).map { try $0.decode(String.self, at: 0) }))
            #expect(try await store.creditBalance(for: alice, app: app) == 200)
        }
        let migrator = try Migrator.bundled(logger: TestDatabase.logger)
        let step = try #require(migrator.script.steps.first { $0.name.hasPrefix("each account's credit and debit") })
        var before = migrator.script
        before.steps.removeAll { $0.version >= step.version }
        try await TestDatabase.withSchema { _, _, pool in
            try await Migrator(script: before, logger: TestDatabase.logger).migrate(pool)
            // The app as that build stored it (today's catalog writes columns of later steps); the catalog is applied
            // over it, under the same id, once the schema is current.
            let appID = try await pool.query(
                "INSERT INTO apps (bundle_id, catalog) VALUES (\(F.bundleID), '{}'::jsonb) RETURNING app_id"
            ).single().decode(Int64.self, at: 0)
            // Entries as a build before the step wrote them: the ledger alone.
            _ = try await pool.query(
                """
                INSERT INTO ledger_entries (app_id, idempotency_key, kind, account_id, environment,
                    original_transaction_id, transaction_id, product_id, credits, effective_at, reason)
                VALUES (\(appID), 'credit:c1', 'credit', 'alice', 'Production', 'c1', 'c1', 'coins.100', 100, now(), 'purchase'),
                    (\(appID), 'debit:c1', 'debit', 'alice', 'Production', 'c1', 'c1', 'coins.100', 100, now(), 'refund'),
                    (\(appID), 'credit:c2', 'credit', 'alice', 'Production', 'c2', 'c2', 'coins.100', 100, now(), 'purchase'),
                    (\(appID), 'grant:o1', 'grant', 'alice', 'Production', 'o1', 't1', 'pro.monthly', NULL, now(), 'purchase')
                """)
            try await migrator.migrate(pool)
            let app = try await F.app(on: pool)
            #expect(app.appID == appID)
            let filled = try await pool.query(credits).map { try $0.decode(String.self, at: 0) }
            #expect(filled == ["alice credit:c1 100", "alice credit:c2 100", "alice debit:c1 -100"])
            #expect(filled == (try await pool.query(ledger).map { try $0.decode(String.self, at: 0) }))
            #expect(try await LedgerStore(pool: pool).creditBalance(for: alice, app: app) == 100)
        }
    }

    /// The one-statement account read gives what the per-chain reads give: every chain the account owns or
    /// has owned (transactions sorted, bindings in sequence) and its credit balance; nothing for a stranger.
    @Test func holdingsReadEveryChainAnAccountHasOwnedAndItsCredits() async throws {
        try await withLedger { store, app, _ in
            let purchase = F.subscription("t1", chain: "o1", from: 0, to: 30)
            try await store.apply(
                F.receipt(
                    by: alice, [purchase], renewals: [F.renewal(chain: "o1", willAutoRenew: false, on: 0)], on: 0),
                app: app, now: F.day(0))
            try await store.apply(
                F.receipt(
                    by: bob, [F.subscription("t2", chain: "o1", from: 40, to: 70), purchase],
                    renewals: [F.renewal(chain: "o1", willAutoRenew: true, on: 40)], on: 40),
                app: app, now: F.day(40))
            try await store.apply(
                F.receipt(
                    by: alice,
                    [F.consumable("c2", on: 5), F.consumable("c1", on: 3, refundedOn: 4), F.consumable("c3", on: 6)],
                    on: 6),
                app: app, now: F.day(6))

            let alices = try await store.holdings(of: alice, app: app)
            let bobs = try await store.holdings(of: bob, app: app)
            #expect(alices.credits == 200)
            #expect(alices.credits == (try await store.creditBalance(for: alice, app: app)))
            #expect(bobs.credits == 0)
            // o1 moved from alice to bob: both have owned it, with the same history.
            #expect(alices.chains.map(\.key.chainID) == ["c1", "c2", "c3", "o1"])
            #expect(bobs.chains.map(\.key.chainID) == ["o1"])
            for chain in alices.chains {
                #expect(chain == (try await store.chain(chain.key, app: app)))
            }
            let o1 = try #require(bobs.chains.first)
            #expect(o1.transactions.map(\.transactionID) == ["t1", "t2"])
            #expect(o1.bindingChanges.map(\.to) == [alice, bob])
            #expect(o1.bindingChanges.map(\.sequence) == [0, 1])
            #expect(o1.bindingChanges.last?.from == alice)
            #expect(o1.owner(at: F.day(50)) == bob)

            let stranger = try await store.holdings(of: F.account("carol"), app: app)
            #expect(stranger.chains.isEmpty && stranger.credits == 0)
        }
    }

    /// A notification is stored and applied in one call; its replay is a no-op reported as a duplicate.
    @Test func aReceivedNotificationIsStoredAppliedAndItsReplayChangesNothing() async throws {
        try await withLedger { store, app, pool in
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
            let input = LedgerInput(notification: notification)
            guard
                case .applied(let id, let applied) = try await store.receive(
                    notification, body: "{}", input: input, app: app, now: F.day(30))
            else {
                Issue.record("the first delivery was not applied")
                return
            }
            #expect(applied.newEntries == 1)
            #expect(applied.accounts["t2"] == alice)
            guard
                case .duplicate(let again) = try await store.receive(
                    notification, body: "{}", input: input, app: app, now: F.day(31))
            else {
                Issue.record("the replay was applied again")
                return
            }
            #expect(again == id)
            let rows = try await pool.query(
                "SELECT status, notification_row_id FROM notifications WHERE app_id = \(app.appID)")
            #expect(try rows.map { try $0.decode(String.self, at: 0) } == ["applied"])
            #expect(try await store.entitlements(for: alice, app: app, at: F.day(45)).first?.expiresAt == F.day(60))
        }
    }

    /// A received notification is stored in its apply's transaction. When that apply fails, the notification is
    /// still kept, alone, with its error (`retry`); its redelivery applies the stored row, and a second redelivery
    /// is a duplicate. Two deliveries racing apply it once.
    @Test func aNotificationWhoseApplyFailsIsKeptWithItsErrorAndItsRedeliveryAppliesIt() async throws {
        try await withLedger { store, app, pool in
            try await store.apply(
                F.receipt(
                    by: alice, [F.subscription("t1", chain: "o1", from: 0, to: 30)],
                    renewals: [F.renewal(chain: "o1", willAutoRenew: true, on: 0)], on: 0),
                app: app, now: F.day(0))
            let notification = ServerNotification(
                notificationID: "n-fails", version: .v2, notificationType: "DID_RENEW", bundleID: F.bundleID,
                environment: .production, signedDate: F.day(30),
                transaction: F.subscription("t2", chain: "o1", from: 30, to: 60),
                renewalInfo: F.renewal(chain: "o1", willAutoRenew: true, on: 30))
            let input = LedgerInput(notification: notification)
            try await pool.execute(
                script: """
                    CREATE FUNCTION test_refuse_entries() RETURNS trigger LANGUAGE plpgsql AS $$
                    BEGIN RAISE EXCEPTION 'entries refused by the test'; END $$
                    """)
            try await pool.execute(
                script: """
                    CREATE TRIGGER test_refuse_entries BEFORE INSERT ON ledger_entries
                        FOR EACH ROW EXECUTE FUNCTION test_refuse_entries()
                    """)
            await #expect(throws: PostgresError.self) {
                try await store.receive(notification, body: "{}", input: input, app: app, now: F.day(30))
            }
            let failed = try await pool.query(
                "SELECT status, attempts, last_error FROM notifications WHERE notification_id = 'n-fails'"
            ).single()
            #expect(try failed.decode(String.self, at: 0) == "retry")
            #expect(try failed.decode(Int32.self, at: 1) == 1)
            #expect(try failed.decode(String.self, at: 2).contains("entries refused by the test"))
            #expect(try await store.entries(for: alice, app: app).count == 1)

            try await pool.execute(script: "DROP TRIGGER test_refuse_entries ON ledger_entries")
            guard
                case .applied(let id, let applied) = try await store.receive(
                    notification, body: "{}", input: input, app: app, now: F.day(31))
            else {
                Issue.record("the redelivery was not applied")
                return
            }
            #expect(applied.newEntries == 1)
            guard
                case .duplicate(let again) = try await store.receive(
                    notification, body: "{}", input: input, app: app, now: F.day(32))
            else {
                Issue.record("the second redelivery was applied again")
                return
            }
            #expect(again == id)
            let rows = try await pool.query(
                "SELECT status, attempts FROM notifications WHERE notification_id = 'n-fails'")
            #expect(
                try rows.map { [try $0.decode(String.self, at: 0), "\(try $0.decode(Int32.self, at: 1))"] } == [
                    ["applied", "2"]
                ])

            // Two deliveries of a new notification at once: one applies it, the other finds it applied.
            let racing = ServerNotification(
                notificationID: "n-race", version: .v2, notificationType: "DID_RENEW", bundleID: F.bundleID,
                environment: .production, signedDate: F.day(60),
                transaction: F.subscription("t3", chain: "o1", from: 60, to: 90),
                renewalInfo: F.renewal(chain: "o1", willAutoRenew: true, on: 60))
            let outcomes = try await withThrowingTaskGroup(of: Bool.self) { group in
                for _ in 0..<2 {
                    group.addTask {
                        if case .applied = try await store.receive(
                            racing, body: "{}", input: LedgerInput(notification: racing), app: app, now: F.day(60))
                        {
                            return true
                        }
                        return false
                    }
                }
                return try await group.reduce(into: [Bool]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 }.count == 1 && outcomes.count == 2)
            #expect(try await store.entries(for: alice, app: app).count == 3)
        }
    }

    /// The same receipt applied by 50 concurrent tasks for two accounts: one owner, one grant per transaction.
    @Test func concurrentAppliesOfOneReceiptForTwoAccountsGiveOneOwnerAndOneGrantEach() async throws {
        try await withLedger { store, app, pool in
            let transactions = [
                F.subscription("c1", chain: "oc", from: 0, to: 30),
                F.subscription("c2", chain: "oc", from: 30, to: 60),
                F.consumable("k1", on: 5),
            ]
            let renewals = [F.renewal(chain: "oc", willAutoRenew: true, on: 31)]
            let submitters = [alice, bob]
            try await withThrowingTaskGroup(of: Void.self) { group in
                for index in 0..<50 {
                    let input = F.receipt(
                        by: submitters[index % 2], transactions.shuffled(), renewals: renewals, on: 31)
                    group.addTask { try await store.apply(input, app: app, now: F.day(31)) }
                }
                try await group.waitForAll()
            }
            let owners = try await pool.query(
                """
                SELECT DISTINCT account_id FROM transactions WHERE app_id = \(app.appID) AND original_transaction_id =
                    'oc'
                """)
            #expect(owners.count == 1)
            let current = try await pool.query(
                "SELECT count(*) FROM ownership_bindings WHERE app_id = \(app.appID) AND ended_at IS NULL")
            #expect(try current.single().decode(Int64.self, at: 0) == 2)  // chain oc and the consumable's chain k1
            let perTransaction = try await pool.query(
                """
                SELECT transaction_id, count(*) FROM ledger_entries
                WHERE app_id = \(app.appID) AND kind IN ('grant', 'extend', 'credit') GROUP BY transaction_id ORDER BY 1
                """)
            #expect(try perTransaction.map { try $0.decode(String.self, at: 0) } == ["c1", "c2", "k1"])
            #expect(try perTransaction.allSatisfy { try $0.decode(Int64.self, at: 1) == 1 })
            let owner = try #require(try await store.ownerColumn(of: "oc", app: app))
            let ownerID = F.account(owner)
            #expect(
                try await store.creditBalance(for: ownerID, app: app)
                    + (try await store.creditBalance(for: ownerID == alice ? bob : alice, app: app)) == 100)
        }
    }

    /// Replaying an input, or any earlier input, after later ones adds no entry and changes no state.
    @Test func replayingInputsAddsNothing() async throws {
        try await withLedger { store, app, pool in
            let inputs = [
                F.receipt(
                    by: alice, [F.subscription("t1", chain: "o1", from: 0, to: 30)],
                    renewals: [F.renewal(chain: "o1", willAutoRenew: true, on: 0)], on: 0),
                F.notification(
                    [F.subscription("t2", chain: "o1", from: 30, to: 60)],
                    renewals: [F.renewal(chain: "o1", willAutoRenew: true, on: 30)], on: 30),
                F.notification([F.subscription("t2", chain: "o1", from: 30, to: 60, refundedOn: 35)], on: 35),
            ]
            for input in inputs { try await store.apply(input, app: app, now: F.day(36)) }
            let entries = try await store.entryAccounts(app: app)
            let chainRow = try await pool.query(
                "SELECT snapshot::text, state FROM chains WHERE app_id = \(app.appID)")
            #expect(try chainRow.single().decode(String.self, at: 1) == "revoked")
            for input in inputs.reversed() {
                let applied = try await store.apply(input, app: app, now: F.day(36))
                #expect(applied.newEntries == 0)
            }
            #expect(try await store.entryAccounts(app: app) == entries)
            let again = try await pool.query("SELECT snapshot::text, state FROM chains WHERE app_id = \(app.appID)")
            #expect(try again.single().decode(String.self, at: 0) == chainRow.single().decode(String.self, at: 0))
            #expect(entries.keys.contains("revoke:Production:t2:\(F.day(35).millisecondsSince1970)"))
        }
    }

    /// A refund revokes what the transaction granted from the refund date; the reversal restores it.
    @Test func refundRevokesAndItsReversalRestores() async throws {
        try await withLedger { store, app, _ in
            let purchase = F.subscription("o1", chain: "o1", from: 0, to: 30)
            try await store.apply(
                F.receipt(by: alice, [purchase], renewals: [F.renewal(chain: "o1", willAutoRenew: true, on: 0)], on: 0),
                app: app, now: F.day(0))
            #expect(try await store.entitlements(for: alice, app: app, at: F.day(12)).map(\.entitlementID) == ["pro"])
            try await store.apply(
                F.notification([F.subscription("o1", chain: "o1", from: 0, to: 30, refundedOn: 10)], on: 10),
                app: app, now: F.day(10))
            #expect(try await store.entitlements(for: alice, app: app, at: F.day(9)).map(\.entitlementID) == ["pro"])
            #expect(try await store.entitlements(for: alice, app: app, at: F.day(12)).isEmpty)
            try await store.apply(F.notification([purchase], on: 14), app: app, now: F.day(14))
            #expect(try await store.entitlements(for: alice, app: app, at: F.day(15)).map(\.entitlementID) == ["pro"])
            let kinds = try await store.entries(for: alice, app: app).map(\.kind)
            #expect(kinds == [.grant, .revoke, .restore])
        }
    }

    /// An order's token brings the purchase to the ordering account; the order is fulfilled once and the
    /// consumable credited once, however many receipts carry it.
    @Test func anOrderIsFulfilledOnceAndItsPurchaseCreditedOnce() async throws {
        try await withLedger { store, app, _ in
            let order = try await store.createOrder(account: alice, productID: "coins.100", app: app, now: F.day(1))
            #expect(order.state == .pending)
            let coins = F.consumable("k1", on: 1, token: order.id.rawValue.uppercased())
            // Bob's device uploads the receipt first: the token names alice's order, so alice gets the credits.
            let first = try await store.apply(F.receipt(by: bob, [coins], on: 1), app: app, now: F.day(1))
            #expect(first.decision.transactionOutcomes.first?.result == .belongsToAnotherAccount)
            for _ in 0..<3 { try await store.apply(F.receipt(by: alice, [coins], on: 2), app: app, now: F.day(2)) }
            #expect(try await store.creditBalance(for: alice, app: app) == 100)
            #expect(try await store.creditBalance(for: bob, app: app) == 0)
            let stored = try #require(try await store.order(order.id, app: app))
            #expect(stored.state == .fulfilled)
            #expect(stored.fulfilledBy == "k1")
            // A refund takes the credits back with a negative entry.
            try await store.apply(
                F.notification([F.consumable("k1", on: 1, refundedOn: 3)], on: 3), app: app, now: F.day(3))
            #expect(try await store.creditBalance(for: alice, app: app) == 0)
        }
    }

    @Test func unknownProductsCannotBeOrdered() async throws {
        try await withLedger { store, app, _ in
            await #expect {
                try await store.createOrder(account: alice, productID: "nope", app: app, now: F.day(0))
            } throws: { ($0 as? StoreError)?.code == .unknownProduct }
        }
    }

    /// A stored receipt stays `pending` until the input it became is applied, in the same transaction.
    @Test func aStoredReceiptIsMarkedAppliedWithItsEffects() async throws {
        try await withLedger { store, app, pool in
            let id = try await store.storeSubmission(kind: .appReceipt, body: "MIIT...base64", account: alice, app: app)
            #expect(try await store.submissionStatus(id) == "pending")
            try await store.apply(
                F.receipt(by: alice, [F.subscription("t1", chain: "o1", from: 0, to: 30)], on: 0),
                app: app, reference: .submission(id), now: F.day(0))
            #expect(try await store.submissionStatus(id) == "applied")
            let linked = try await pool.query("SELECT count(*) FROM ledger_entries WHERE receipt_id = \(id)")
            #expect(try linked.single().decode(Int64.self, at: 0) == 1)
            try await store.markSubmission(id, failed: "late failure", retryable: false, now: F.day(1))
            #expect(try await store.submissionStatus(id) == "applied")
        }
    }

    /// The database and the in-memory ledger reach the same entries, owners and entitlements for the same
    /// inputs in random orders (one account per chain, so order cannot matter; see the core's property test).
    @Test func thePostgreSQLLedgerAgreesWithThePureLedger() async throws {
        var generator = SystemRandomNumberGenerator()
        let inputs: [LedgerInput] = [
            F.receipt(
                by: alice, [F.subscription("a1", chain: "oa", from: 0, to: 30)],
                renewals: [F.renewal(chain: "oa", willAutoRenew: true, on: 0)], on: 0),
            F.notification(
                [F.subscription("a2", chain: "oa", from: 30, to: 60)],
                renewals: [F.renewal(chain: "oa", willAutoRenew: true, on: 30)], on: 30),
            F.receipt(by: bob, [F.consumable("b1", on: 3), F.subscription("b2", chain: "ob", from: 2, to: 32)], on: 3),
            F.notification([F.subscription("b2", chain: "ob", from: 2, to: 32, refundedOn: 20)], on: 20),
            F.notification([], renewals: [F.renewal(chain: "oa", willAutoRenew: false, on: 40, intent: 1)], on: 40),
        ]
        for _ in 0..<3 {
            let order = (inputs + inputs.prefix(2)).shuffled(using: &generator)
            try await withLedger { store, app, _ in
                var oracle = LedgerState(catalog: Catalog(apps: [app.definition]))
                for input in order {
                    try await store.apply(input, app: app, now: F.day(45))
                    try oracle.apply(input, now: F.day(45))
                }
                let expected = Dictionary(
                    uniqueKeysWithValues: oracle.entries.values.map { ($0.idempotencyKey, $0.account.rawValue) })
                #expect(try await store.entryAccounts(app: app) == expected)
                for account in [alice, bob] {
                    for day in [1, 10, 25, 35, 61] {
                        let stored = try await store.entitlements(for: account, app: app, at: F.day(day))
                        #expect(stored == oracle.entitlements(for: account, bundleID: F.bundleID, at: F.day(day)))
                    }
                    #expect(
                        try await store.creditBalance(for: account, app: app)
                            == oracle.creditBalance(for: account, bundleID: F.bundleID, at: F.day(45)))
                }
                for (key, chain) in oracle.chains {
                    #expect(try await store.chain(key, app: app) == chain)
                }
            }
        }
    }
}
