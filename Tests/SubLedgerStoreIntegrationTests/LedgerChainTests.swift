import Foundation
import LedgerTestSupport
import PostgresLibPQ
import SubLedgerCore
import SubLedgerTestSupport
import Testing

@testable import SubLedgerStore

/// The tamper-evident ledger (docs/guides/operate.md, "Verifying the ledger"): every entry and every input an apply
/// used is hashed into its subscription chain, and `verifyLedgerChain` recomputes the chains in Swift and names the
/// first row that no longer matches.
@Suite struct LedgerChainTests {
    typealias F = LedgerFixtures
    static let alice = F.account("alice")
    static let bob = F.account("bob")

    static func withFilledLedger(
        _ body: @Sendable @escaping (LedgerStore, StoredApp, PostgresPool) async throws -> Void
    ) async throws {
        try await TestDatabase.withSchema(template: .ledger) { _, _, pool in
            try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
            let store = LedgerStore(pool: pool)
            let app = try await F.app(on: store.pool)
            try await FilledLedger.fill(store, app)
            try await body(store, app, pool)
        }
    }

    static func count(_ pool: PostgresPool, _ sql: PostgresQuery) async throws -> Int64 {
        try await pool.query(sql).single().decode(Int64.self, at: 0)
    }

    static func entryID(_ pool: PostgresPool, key: String) async throws -> Int64 {
        try await pool.query("SELECT entry_id FROM ledger_entries WHERE idempotency_key = \(key)").single()
            .decode(Int64.self, at: 0)
    }

    @Test func anUntouchedLedgerVerifies() async throws {
        try await Self.withFilledLedger { store, app, pool in
            let entries = try await Self.count(pool, "SELECT count(*) FROM ledger_entries")
            let inputs = try await Self.count(
                pool, "SELECT count(*) FROM ledger_chain_links WHERE item_table <> 'ledger_entries'")
            #expect(entries >= 9)
            // Every entry is a link; so is every input that changed a chain: 3 receipts and 6 notifications (the
            // replayed receipt is the first one's row, linked once).
            #expect(
                try await Self.count(
                    pool, "SELECT count(*) FROM ledger_chain_links WHERE item_table = 'ledger_entries'")
                    == entries)
            #expect(inputs == 9)
            let result = try await store.verifyLedgerChain(appID: app.appID, since: nil)
            #expect(result.breaks == [])
            #expect(result.chains == 3)
            #expect(Int64(result.links) == entries + inputs)
            #expect(result.rehashed == result.links)
            // Each link's hash follows from the one before: in key order, the chain's links are the inputs and
            // entries in the order they were applied.
            let order = try await pool.query(
                """
                SELECT item_table FROM ledger_chain_links WHERE original_transaction_id = 'bob-sub' ORDER BY seq
                """
            ).map { try $0.decode(String.self, at: 0) }
            #expect(order.first == "receipts")
            #expect(order.last == "ledger_entries")
            #expect(order.filter { $0 == "notifications" }.count == 2)

            // Only links made since a moment: none after the last apply.
            let later = try await store.verifyLedgerChain(
                appID: app.appID,
                since: Instant(millisecondsSince1970: Int64(Date().timeIntervalSince1970 * 1000) + 3_600_000))
            #expect(later.isIntact)
            #expect(later.chains == 0)
        }
    }

    @Test func aRowChangedBehindItsBackIsNamed() async throws {
        try await Self.withFilledLedger { store, app, pool in
            // The refund's revoke entry of bob's renewal moved a month on.
            let entries = try await pool.query(
                "SELECT entry_id FROM ledger_entries WHERE original_transaction_id = 'bob-sub' AND kind = 'revoke'")
            let revoke = try #require(try entries.first?.decode(Int64.self, at: 0))
            try await FilledLedger.behindItsBack(
                pool,
                "UPDATE ledger_entries SET effective_at = effective_at + interval '30 days' WHERE entry_id = \(revoke)")
            let result = try await store.verifyLedgerChain(appID: app.appID, since: nil)
            let first = try #require(result.breaks.first)
            #expect(result.breaks.count == 1)
            #expect(first.kind == .changed)
            #expect(first.table == "ledger_entries")
            #expect(first.id == revoke)
            #expect(first.chainID == "bob-sub")
            #expect(first.bundleID == F.bundleID)
            #expect(first.description.contains("ledger_entries \(revoke)"))

            // A stored input's body, which no trigger guards: its chain names it too.
            try await pool.query(
                "UPDATE receipts SET body = 'forged', body_sha256 = sha256('forged') WHERE body = 'receipt-a1'")
            let both = try await store.verifyLedgerChain(appID: nil, since: nil)
            #expect(both.breaks.map(\.chainID) == ["alice-sub", "bob-sub"])
            #expect(both.breaks.first?.table == "receipts")
            #expect(both.breaks.first?.seq == 1)
        }
    }

    @Test func aDeletedRowIsNamed() async throws {
        try await Self.withFilledLedger { store, app, pool in
            let grant = try await pool.query(
                """
                SELECT min(entry_id) FROM ledger_entries WHERE original_transaction_id = 'alice-sub'
                """
            ).single().decode(Int64.self, at: 0)
            try await FilledLedger.behindItsBack(pool, "DELETE FROM ledger_entries WHERE entry_id = \(grant)")
            let result = try await store.verifyLedgerChain(appID: app.appID, since: nil)
            #expect(result.breaks.count == 1)
            let first = try #require(result.breaks.first)
            #expect(first.kind == .missing)
            #expect(first.table == "ledger_entries")
            #expect(first.id == grant)
            #expect(first.chainID == "alice-sub")
        }
    }

    @Test func entriesAndLinksRemovedTogetherAreNoticed() async throws {
        try await Self.withFilledLedger { store, app, pool in
            // The last entry of the consumable's chain with its link: the head still names it.
            let last = try await pool.query(
                "SELECT max(entry_id) FROM ledger_entries WHERE original_transaction_id = 'coins-1'"
            ).single().decode(Int64.self, at: 0)
            try await FilledLedger.behindItsBack(
                pool,
                """
                DELETE FROM ledger_entries WHERE entry_id = \(last);
                DELETE FROM ledger_chain_links WHERE item_table = 'ledger_entries' AND item_id = \(last)
                """)
            var result = try await store.verifyLedgerChain(appID: app.appID, since: nil)
            #expect(result.breaks.map(\.kind) == [.head])
            #expect(result.breaks.first?.chainID == "coins-1")

            // A link taken from the middle of alice's chain, its entry left: a gap, then the entry in no link.
            let middle = try await pool.query(
                "SELECT seq, item_id FROM ledger_chain_links WHERE original_transaction_id = 'alice-sub' AND seq = 3"
            ).single()
            let seq = try middle.decode(Int64.self, at: 0)
            try await FilledLedger.behindItsBack(
                pool, "DELETE FROM ledger_chain_links WHERE original_transaction_id = 'alice-sub' AND seq = \(seq)")
            result = try await store.verifyLedgerChain(appID: app.appID, since: nil)
            #expect(result.breaks.map(\.kind) == [.gap, .head])
            #expect(result.breaks.first?.seq == seq)

            // An entry inserted with no link (as if written around the apply).
            try await pool.query(
                """
                INSERT INTO ledger_entries (app_id, idempotency_key, kind, account_id, environment,
                    original_transaction_id, product_id, effective_at, reason)
                VALUES (\(app.appID), 'forged-grant', 'grant', 'bob', 'Production', 'bob-sub', 'pro.monthly', now(),
                    'purchase')
                """)
            let forged = try await Self.entryID(pool, key: "forged-grant")
            result = try await store.verifyLedgerChain(appID: app.appID, since: nil)
            let bob = try #require(result.breaks.first { $0.chainID == "bob-sub" })
            #expect(bob.kind == .unlinked)
            #expect(bob.id == forged)
        }
    }

    @Test func applyingLinksUnderTheChainsLockAndRepeatsAddNothing() async throws {
        try await Self.withFilledLedger { store, app, pool in
            let before = try await Self.count(pool, "SELECT count(*) FROM ledger_chain_links")
            // The same renewal again (a new delivery id, the same transaction): no entry, the chain unchanged.
            let again = try await store.apply(
                F.notification([F.subscription("a4", chain: "alice-sub", from: 90, to: 120)], on: 91), app: app,
                now: F.day(91))
            #expect(again.newEntries == 0)
            #expect(try await Self.count(pool, "SELECT count(*) FROM ledger_chain_links") == before)
            // Concurrent applies on one chain: each renewal's entries are linked once, in one line.
            let added = try await withThrowingTaskGroup(of: Int.self) { group in
                for month in 4...9 {
                    group.addTask {
                        try await store.apply(
                            F.notification(
                                [
                                    F.subscription(
                                        "a\(month + 1)", chain: "alice-sub", from: month * 30, to: month * 30 + 30)
                                ],
                                on: month * 30), app: app, now: F.day(month * 30)
                        ).newEntries
                    }
                }
                return try await group.reduce(0, +)
            }
            #expect(added >= 6)
            #expect(try await Self.count(pool, "SELECT count(*) FROM ledger_chain_links") == before + Int64(added))
            let seqs = try await pool.query(
                "SELECT seq FROM ledger_chain_links WHERE original_transaction_id = 'alice-sub' ORDER BY seq"
            ).map { try $0.decode(Int64.self, at: 0) }
            #expect(seqs == Array(1...Int64(seqs.count)))
            #expect(try await store.verifyLedgerChain(appID: app.appID, since: nil).isIntact)
            // The links are append-only.
            await #expect(throws: PostgresError.self) {
                _ = try await pool.query("UPDATE ledger_chain_links SET hash = hash WHERE seq = 1")
            }
        }
    }

    /// An apply writes each link with its item (schema step 62): the input's link from the fields the service encoded
    /// (a notification it stores) or the database read (an input stored before), each entry's in the statement that
    /// inserts it. Every link's hash is the database's own encoding of its row after the link before it, whatever the
    /// notification's text, subtype or signing instant, and an input applied again is not linked twice.
    @Test func everyLinkAnApplyWritesIsTheDatabasesEncodingOfItsRow() async throws {
        try await Self.withFilledLedger { store, app, pool in
            let bodies = [
                #"{"signedPayload":"eyJ…","note":"Zürich — 東京 \u0000 \"quoted\""}"#,
                #"{"notificationType":"DID_RENEW"}"#,
            ]
            for (index, body) in bodies.enumerated() {
                let day = 120 + 30 * index
                let signed = Instant(millisecondsSince1970: F.day(day).millisecondsSince1970 + 987)
                let notification = ServerNotification(
                    notificationID: "linked-\(index)", version: index == 0 ? .v2 : .v1, notificationType: "DID_RENEW",
                    subtype: index == 0 ? "BILLING_RECOVERY" : nil, bundleID: F.bundleID, environment: .production,
                    signedDate: signed,
                    transaction: F.subscription("linked-t\(index)", chain: "alice-sub", from: day, to: day + 30),
                    renewalInfo: F.renewal(chain: "alice-sub", willAutoRenew: true, on: day))
                let outcome = try await store.receive(
                    notification, body: body, input: LedgerInput(notification: notification), app: app,
                    now: F.day(day))
                guard case .applied(_, let applied) = outcome else {
                    Issue.record("not applied: \(outcome)")
                    return
                }
                #expect(applied.newEntries == 1)
            }
            // A receipt stored before its apply, applied twice: its input is linked once in each chain it changed.
            let receipt = try await store.storeSubmission(
                kind: .appReceipt, body: "MIIT…", account: F.account("carol"), app: app)
            let input = F.receipt(
                by: F.account("carol"), [F.subscription("carol-t1", chain: "carol-sub", from: 160, to: 190)], on: 160)
            #expect(
                try await store.apply(input, app: app, reference: .submission(receipt), now: F.day(160)).newEntries == 1
            )
            let links = try await Self.count(pool, "SELECT count(*) FROM ledger_chain_links")
            #expect(
                try await store.apply(input, app: app, reference: .submission(receipt), now: F.day(161)).newEntries == 0
            )
            #expect(try await Self.count(pool, "SELECT count(*) FROM ledger_chain_links") == links)
            #expect(
                try await Self.count(
                    pool,
                    "SELECT count(*) FROM ledger_chain_links WHERE item_table = 'receipts' AND item_id = \(receipt)")
                    == 1)

            // Each link's hash from the row it names, by the database's encodings, and each head at its last link.
            let mismatched = try await Self.count(
                pool,
                """
                SELECT count(*) FROM ledger_chain_links l
                LEFT JOIN ledger_chain_links p ON p.app_id = l.app_id AND p.environment = l.environment
                    AND p.original_transaction_id = l.original_transaction_id AND p.seq = l.seq - 1
                LEFT JOIN ledger_entries e ON l.item_table = 'ledger_entries' AND e.entry_id = l.item_id
                LEFT JOIN receipts r ON l.item_table = 'receipts' AND r.receipt_id = l.item_id
                LEFT JOIN notifications n ON l.item_table = 'notifications' AND n.notification_row_id = l.item_id
                WHERE l.item_table IN ('ledger_entries', 'receipts', 'notifications')
                  AND l.hash IS DISTINCT FROM sha256(coalesce(p.hash, \(LedgerChainHash.genesis)::bytea)
                    || CASE l.item_table WHEN 'ledger_entries' THEN ledger_chain_fields(e)
                           WHEN 'receipts' THEN ledger_chain_fields(r) ELSE ledger_chain_fields(n) END)
                """)
            #expect(mismatched == 0)
            let heads = try await Self.count(
                pool,
                """
                SELECT count(*) FROM ledger_chain_heads h
                LEFT JOIN LATERAL (
                    SELECT l.seq, l.hash FROM ledger_chain_links l
                    WHERE l.app_id = h.app_id AND l.environment = h.environment
                      AND l.original_transaction_id = h.original_transaction_id
                    ORDER BY l.seq DESC LIMIT 1) last ON true
                WHERE (h.seq, h.hash) IS DISTINCT FROM (last.seq, last.hash)
                  OR h.last_entry_id IS DISTINCT FROM (
                    SELECT coalesce(max(l.item_id), 0) FROM ledger_chain_links l
                    WHERE l.app_id = h.app_id AND l.environment = h.environment
                      AND l.original_transaction_id = h.original_transaction_id AND l.item_table = 'ledger_entries')
                """)
            #expect(heads == 0)
            #expect(
                try await Self.count(
                    pool, "SELECT count(*) FROM ledger_chain_links WHERE item_table = 'notifications'") >= 2)
            let verified = try await store.verifyLedgerChain(appID: app.appID, since: nil)
            #expect(verified.breaks == [])
            #expect(verified.links == Int(try await Self.count(pool, "SELECT count(*) FROM ledger_chain_links")))
        }
    }

    /// The field encodings run inside the plans of the statements that call them (schema step 40). One that
    /// PostgreSQL cannot inline runs as a query of its own, planned again for every statement that calls it: an
    /// apply's linking then planned about seventeen of them. Only the text array field stays a call (a loop).
    @Test func theFieldEncodingsAreInlinedIntoTheirCallersPlans() async throws {
        try await TestDatabase.withSchema(template: .ledger) { _, _, pool in
            try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
            func plan(_ sql: PostgresQuery) async throws -> String {
                try await pool.query(sql).map { try $0.decode(String.self, at: 0) }.joined(separator: "\n")
            }
            let notifications = try await plan(
                "EXPLAIN (VERBOSE, COSTS OFF) SELECT ledger_chain_fields(n) FROM notifications n")
            let receipts = try await plan("EXPLAIN (VERBOSE, COSTS OFF) SELECT ledger_chain_fields(r) FROM receipts r")
            let entries = try await plan(
                "EXPLAIN (VERBOSE, COSTS OFF) SELECT ledger_chain_fields(e) FROM ledger_entries e")
            #expect(!notifications.contains("ledger_chain_field"), "\(notifications)")
            #expect(!receipts.contains("ledger_chain_field"), "\(receipts)")
            #expect(entries.components(separatedBy: "ledger_chain_field(").count == 2, "\(entries)")
            #expect(entries.contains("ledger_chain_field(entitlement_ids)"), "\(entries)")
            // Inlined down to the functions the encodings call (the bytes stay those `ledger verify` recomputes in
            // Swift, as the other tests here check).
            #expect(notifications.contains("sha256(convert_to(body"), "\(notifications)")
            // Each value is computed once (schema step 41): inlining puts an argument's expression wherever the
            // encoding names it, and step 24's encodings named it three times, so the body was hashed three times.
            func times(_ expression: String, in plan: String) -> Int {
                plan.components(separatedBy: expression).count - 1
            }
            #expect(times("sha256(", in: notifications) == 1, "\(notifications)")
            #expect(times("sha256(", in: receipts) == 1, "\(receipts)")
            #expect(times("EXTRACT(epoch FROM signed_at)", in: notifications) == 1, "\(notifications)")
            #expect(times("EXTRACT(epoch FROM received_at)", in: receipts) == 1, "\(receipts)")
            #expect(times("int8send(entry_id)", in: entries) == 1, "\(entries)")
        }
    }

    /// The link reads the input it links by its key whatever the planner's statistics say (schema step 54). Its
    /// plans are generic and kept for the connection's life: planned while the statistics said `notifications` was
    /// empty (a VACUUM ANALYZE before the first notification, as `scripts/bench` runs), the notification's look-up
    /// read the whole table for every notification until the next ANALYZE.
    @Test func theLinkReadsTheNotificationByItsKeyWhateverTheStatistics() async throws {
        try await TestDatabase.withSchema(template: .ledger) { _, _, pool in
            try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
            let app = try await F.app(on: pool)
            try await pool.execute(script: "VACUUM ANALYZE notifications")
            let scans = try await pool.withConnection { connection in
                func add(_ count: Int, from first: Int) throws -> Int64 {
                    try connection.query(
                        """
                        WITH added AS (
                            INSERT INTO notifications (app_id, notification_id, version, body)
                            SELECT \(app.appID), 'n-' || i, 'v2', repeat('x', 200)
                            FROM generate_series(\(first), \(first + count - 1)) i
                            RETURNING notification_row_id)
                        SELECT max(notification_row_id) FROM added
                        """
                    ).single().decode(Int64.self, at: 0)
                }
                // The connection's first link plans the function's statements: one notification in the table then.
                let first = try add(1, from: 1)
                _ = try connection.query(
                    "SELECT ledger_chain_link(\(app.appID), 'Production', 'chain-1', NULL, \(first))")
                let newest = try add(500, from: 2)
                try connection.execute(script: "BEGIN")
                _ = try connection.query(
                    "SELECT ledger_chain_link(\(app.appID), 'Production', 'chain-2', NULL, \(newest))")
                let row = try connection.query(
                    """
                    SELECT coalesce(seq_scan, 0), coalesce(idx_scan, 0) FROM pg_stat_xact_user_tables
                    WHERE relname = 'notifications'
                    """
                ).single()
                try connection.execute(script: "ROLLBACK")
                return (sequential: try row.decode(Int64.self, at: 0), index: try row.decode(Int64.self, at: 1))
            }
            #expect(scans.sequential == 0 && scans.index > 0, "\(scans)")
        }
    }

    /// The inputs' bodies are stored compressed with lz4 where the server has it (schema step 42): pglz spends a
    /// backend's CPU on every base64 body only to store it uncompressed.
    @Test func theInputsBodiesAreCompressedWithLZ4() async throws {
        try await TestDatabase.withSchema(template: .ledger) { _, _, pool in
            try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
            let methods = try await pool.query(
                """
                SELECT attrelid::regclass::text, attcompression::text FROM pg_attribute
                WHERE attrelid IN ('notifications'::regclass, 'receipts'::regclass) AND attname = 'body'
                ORDER BY 1
                """
            ).map { "\(try $0.decode(String.self, at: 0))=\(try $0.decode(String.self, at: 1))" }
            #expect(methods == ["notifications=l", "receipts=l"])
        }
    }

    /// `secrets rotate-key` takes the shared secret out of V1 bodies stored with it. A body its chain has linked
    /// already keeps the chain intact through that (the redaction is recorded and linked); a body changed any other
    /// way still reads as changed, even with a forged redaction row beside it.
    @Test func aRedactedBodyKeepsItsChainAndAnUnlinkedRedactionProvesNothing() async throws {
        try await Self.withFilledLedger { store, app, pool in
            let notification = ServerNotification(
                notificationID: "renew-v1", version: .v1, notificationType: "DID_RENEW", bundleID: F.bundleID,
                environment: .production, signedDate: F.day(120),
                transaction: F.subscription("a5", chain: "alice-sub", from: 120, to: 150),
                renewalInfo: F.renewal(chain: "alice-sub", willAutoRenew: true, on: 120))
            let body = #"{"notification_type":"DID_RENEW","password":"s3cret"}"#
            let redacted = #"{"notification_type":"DID_RENEW"}"#
            _ = try await store.receive(
                notification, body: body, input: LedgerInput(notification: notification), app: app, now: F.day(120))
            let row = try await pool.query(
                "SELECT notification_row_id FROM notifications WHERE notification_id = 'renew-v1'"
            ).single().decode(Int64.self, at: 0)
            #expect(
                try await Self.count(
                    pool,
                    "SELECT count(*) FROM ledger_chain_links WHERE item_table = 'notifications' AND item_id = \(row)")
                    == 1)
            #expect(try await store.verifyLedgerChain(appID: app.appID, since: nil).isIntact)

            let redact: (String) -> String = { $0.replacingOccurrences(of: #","password":"s3cret""#, with: "") }
            let secrets = SecretStore(pool: pool, secretKeys: F.secretKeys, logger: TestDatabase.logger)
            #expect(try await secrets.countUnredactedV1Notifications(redact: redact) == 1)
            #expect(try await secrets.redactStoredV1Notifications(redact: redact) == 1)
            #expect(try await secrets.countUnredactedV1Notifications(redact: redact) == 0)
            let stored = try await pool.query("SELECT body FROM notifications WHERE notification_row_id = \(row)")
                .single().decode(String.self, at: 0)
            #expect(stored == redacted)
            let last = try await pool.query(
                """
                SELECT item_table FROM ledger_chain_links WHERE original_transaction_id = 'alice-sub'
                ORDER BY seq DESC LIMIT 1
                """
            ).single().decode(String.self, at: 0)
            #expect(last == "notification_redactions")
            let verified = try await store.verifyLedgerChain(appID: app.appID, since: nil)
            #expect(verified.breaks == [])
            #expect(verified.links == Int(try await Self.count(pool, "SELECT count(*) FROM ledger_chain_links")))
            await #expect(throws: PostgresError.self) {
                _ = try await pool.query("DELETE FROM notification_redactions")
            }

            // The body changed again, by SQL, with a redaction row to match that no link holds.
            try await pool.query(
                """
                UPDATE notifications SET body = '{"notification_type":"REFUND"}' WHERE notification_row_id = \(row);
                """)
            try await pool.query(
                """
                INSERT INTO notification_redactions (notification_row_id, body_sha256_before, body_sha256_after)
                VALUES (\(row), sha256(convert_to(\(redacted), 'UTF8')),
                    sha256(convert_to('{"notification_type":"REFUND"}', 'UTF8')))
                """)
            let forged = try await store.verifyLedgerChain(appID: app.appID, since: nil)
            let first = try #require(forged.breaks.first)
            #expect(forged.breaks.count == 1)
            #expect(first.kind == .changed)
            #expect(first.table == "notifications")
            #expect(first.id == row)
            #expect(first.chainID == "alice-sub")
        }
    }

    /// A database written by the schema before the chain (filled through the real ledger path, then taken back to
    /// that schema: the chain's tables and functions dropped, which must give exactly the shape of a database
    /// migrated without them), migrated: the step links what was there, and `ledger verify` passes at once.
    @Test func anUpgradedDatabaseVerifiesClean() async throws {
        let migrator = try Migrator.bundled(logger: TestDatabase.logger)
        // The chain's step and the later steps that change the chain (its redactions, its array field, its fields'
        // volatility, each field's value computed once, account erasures and their keyed digests, an entry's fields
        // from its columns, its columns' rules as domains): a database from before the chain has none of them.
        let chainSteps = migrator.script.steps.filter {
            $0.name.hasPrefix("ledger chain:") || $0.name.hasPrefix("notification redactions:")
        }.map(\.version)
        #expect(chainSteps.count == 9)
        var before = migrator.script
        before.steps.removeAll { chainSteps.contains($0.version) }
        let oldShape = try await TestDatabase.withSchema { _, _, pool in
            try await Migrator(script: before, logger: TestDatabase.logger).migrate(pool)
            return try await DistributionUpgradeTests.shape(pool)
        }
        try await TestDatabase.withSchema(template: .ledger) { _, _, pool in
            try await migrator.migrate(pool)
            let store = LedgerStore(pool: pool)
            let app = try await F.app(on: store.pool)
            try await FilledLedger.fill(store, app)
            let linked = try await pool.query(
                "SELECT string_agg(concat_ws(':', original_transaction_id, seq, item_table, item_id, encode(hash, 'hex')), ',' ORDER BY original_transaction_id, seq) FROM ledger_chain_links"
            ).single().decode(String.self, at: 0)

            try await pool.execute(
                script: """
                    DROP INDEX index_ledger_chain_links_on_input, index_ownership_bindings_on_from_account,
                        index_receipts_on_account, index_webhook_events_on_account,
                        index_webhook_account_sequences_on_account, index_orders_on_account,
                        index_store_obligations_on_account;
                    DROP TABLE account_erasure_keys;
                    DROP FUNCTION account_erase(bigint, text[], bytea[], bytea, text, timestamptz),
                        account_erasure_rewrite_chains(bigint, bigint, text[], text[], timestamptz),
                        account_erasure_rewrite_state(bigint, text[], text[]),
                        account_erasure_link(bigint, bigint, text, text, bigint, text, bigint, bytea, bytea, timestamptz),
                        account_erasure_move(text, bigint, text[], text[]), account_erasure_strip(jsonb),
                        account_erasure_rewrite(text, text[], text[]), account_erasure_pseudonym(text, text[], text[]),
                        ledger_chain_fields(erased_chain_rows);
                    DROP TABLE erased_chain_rows, erased_accounts, account_erasures;
                    DROP FUNCTION account_erasures_are_append_only();
                    DROP FUNCTION notification_redact(bigint, text, text),
                        ledger_chain_fields(notification_redactions), notification_redactions_are_append_only()
                        CASCADE;
                    DROP TABLE notification_redactions;
                    DROP TABLE ledger_chain_links, ledger_chain_heads;
                    DROP DOMAIN chain_sequence, chain_item_table, sha256_digest;
                    DROP FUNCTION ledger_chain_backfill(), ledger_chain_link(bigint, text, text, bigint, bigint, bigint),
                        ledger_chain_fields(ledger_entries), ledger_chain_fields(receipts),
                        ledger_chain_fields(notifications), ledger_chain_field(bytea), ledger_chain_field(text),
                        ledger_chain_field(bigint), ledger_chain_field(timestamptz), ledger_chain_field(uuid),
                        ledger_chain_field(text[]), ledger_chain_links_are_append_only(),
                        ledger_chain_entry_fields(bigint, bigint, text, text, text, text, text, text, text, text[],
                            bigint, timestamptz, timestamptz, text, bigint, bigint, timestamptz);
                    DELETE FROM schema_migrations WHERE version IN (\(chainSteps.map(String.init).joined(separator: ", ")));
                    """)
            #expect(try await DistributionUpgradeTests.shape(pool) == oldShape)
            let functions = try await Self.count(
                pool,
                """
                SELECT count(*) FROM pg_proc WHERE pronamespace = current_schema()::regnamespace
                  AND proname LIKE 'ledger_chain%'
                """)
            #expect(functions == 0)

            let report = try await migrator.migrate(pool)
            #expect(report.applied == chainSteps)
            let result = try await store.verifyLedgerChain(appID: nil, since: nil)
            #expect(result.breaks == [])
            #expect(result.chains == 3)
            // Every entry is linked, with the input it came from before the chain's first entry from it.
            #expect(
                try await Self.count(
                    pool, "SELECT count(*) FROM ledger_chain_links WHERE item_table = 'ledger_entries'")
                    == Self.count(pool, "SELECT count(*) FROM ledger_entries"))
            let firstOfBob = try await pool.query(
                "SELECT item_table FROM ledger_chain_links WHERE original_transaction_id = 'bob-sub' AND seq = 1"
            ).single().decode(String.self, at: 0)
            #expect(firstOfBob == "receipts")
            let relinked = try await pool.query(
                "SELECT string_agg(concat_ws(':', original_transaction_id, seq, item_table, item_id, encode(hash, 'hex')), ',' ORDER BY original_transaction_id, seq) FROM ledger_chain_links"
            ).single().decode(String.self, at: 0)
            // Every input of this ledger made an entry, so the upgrade links exactly what the applies had linked,
            // to the same hashes: an input just before the first entry it made, as the apply links it.
            #expect(relinked == linked)

            // The ledger goes on: a new renewal links onto the backfilled chain and everything still verifies.
            let renewal = try await store.apply(
                F.notification([F.subscription("a5", chain: "alice-sub", from: 120, to: 150)], on: 120), app: app,
                now: F.day(120))
            #expect(renewal.newEntries == 1)
            #expect(try await store.verifyLedgerChain(appID: app.appID, since: nil).isIntact)
        }
    }
}
