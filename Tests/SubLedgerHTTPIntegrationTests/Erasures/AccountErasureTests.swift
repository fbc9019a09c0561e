import AppStore
import Crypto
import Foundation
import HTTPTypes
import HummingbirdTesting
import PostgresLibPQ
import SubLedgerCore
import SubLedgerHTTP
import SubLedgerStore
import SubLedgerTestSupport
import SubLedgerUseCases
import Testing

/// Erasing an account over HTTP against a real PostgreSQL (docs/guides/accounts.md, "Erasing an account"): the id and
/// its identifiers are replaced everywhere (a dump of the database finds them nowhere), what names the id later is
/// refused as erased, the reports' totals stay, `account.erased` is queued, and `ledger verify` tells the erased rows
/// from rows changed without an erasure record.
@Suite struct AccountErasureTests {
    typealias H = ServiceHarness

    /// Distinctive ids, so a dump that holds them anywhere is told apart from one that holds similar text.
    static let customer = "customer-5c1f9e"
    static let anonymous = "anon-7d20b4"

    static func erase(_ client: some TestClientProtocol, _ account: String, key: String, bundleID: String = H.appOne)
        async throws -> (status: HTTPResponse.Status, json: [String: Any])
    {
        try await GrantTests.send(client, .delete, "/v1/accounts/\(account)?bundle_id=\(bundleID)", key: key)
    }

    /// Submits a StoreKit 2 signed transaction for `account` with app one's key.
    static func submit(_ client: some TestClientProtocol, _ harness: H, account: String, _ signedTransaction: String)
        async throws -> (status: HTTPResponse.Status, json: [String: Any], headers: HTTPFields)
    {
        try await client.call(
            .post, "/v1/transactions", key: harness.keyOne,
            json: ["account_id": account, "signed_transaction": signedTransaction])
    }

    static func code(_ answer: (status: HTTPResponse.Status, json: [String: Any])) -> String? {
        (answer.json["error"] as? [String: Any])?["code"] as? String
    }

    /// The whole test database as `pg_dump` writes it, data included.
    static func dump() throws -> String {
        let tools =
            (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql"))?
            .sorted { $0.compare($1, options: .numeric) == .orderedDescending }
            .map { "/usr/lib/postgresql/\($0)/bin/pg_dump" }
            .filter { FileManager.default.isExecutableFile(atPath: $0) } ?? []
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tools.first ?? "/usr/bin/pg_dump")
        process.arguments = ["--no-owner", "--dbname", try TestDatabase.connectionString()]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(process.terminationStatus == 0)
        return String(decoding: data, as: UTF8.self)
    }

    /// A monthly subscription bought on day 1 for 9.99 USD, so that the revenue report has totals.
    static func pricedTransaction(_ harness: H, id: String, token: String?) throws -> String {
        try harness.signer.sign(
            JWSTransactionDecodedPayload(
                originalTransactionID: id, transactionID: id, webOrderLineItemID: "w\(id)",
                bundleID: H.appOne, productID: "pro.monthly", subscriptionGroupIdentifier: "g1",
                purchaseDate: H.day(1).millisecondsSince1970, originalPurchaseDate: H.day(1).millisecondsSince1970,
                expiresDate: H.day(31).millisecondsSince1970, quantity: 1, rawType: "Auto-Renewable Subscription",
                appAccountToken: token, rawInAppOwnershipType: "PURCHASED",
                signedDate: H.day(1).millisecondsSince1970, rawEnvironment: "Production", storefront: "USA",
                currency: "USD", price: 9_990))
    }

    /// A purchase with an app account token (an order's), a grant, an anonymous account merged in, an endpoint:
    /// then the erasure, and everything it must leave.
    @Test func theIdIsNowhereAfterTheErasureAndTheLedgerStillVerifies() async throws {
        try await H.run { harness, client in
            let admin = try await harness.keys.create(bundleID: nil, name: "ops").secret
            let support = try await harness.keys.create(scope: .support, name: "support-desk").secret
            let appID = try #require(try await harness.catalog.app(bundleID: H.appOne)).appID
            try await harness.pool.query(
                """
                INSERT INTO webhook_endpoints (endpoint_id, app_id, url, allow_private_network, secret)
                VALUES (\(UUID()), \(appID), 'https://hooks.example.com/subledger', false, 'whsec_erasure-tests')
                """)
            harness.clock.set(H.day(1))
            let order = try await client.call(
                .post, "/v1/orders", key: harness.keyOne,
                json: ["account_id": Self.customer, "product_id": "pro.monthly"])
            #expect(order.status == .ok || order.status == .created)
            let token = try #require(order.json["app_account_token"] as? String)
            let bought = try await Self.submit(
                client, harness, account: Self.customer, try Self.pricedTransaction(harness, id: "8101", token: token))
            #expect(bought.status == .ok)
            let coins = try await Self.submit(
                client, harness, account: Self.anonymous,
                try harness.signedTransaction(id: "8201", product: "coins.100", purchasedOnDay: 1, expiresOnDay: nil))
            #expect(coins.status == .ok)
            let granted = try await GrantTests.send(
                client, .post, "/v1/accounts/\(Self.customer)/grants", key: support,
                ["bundle_id": H.appOne, "entitlement_id": "pro", "duration": "60d", "reason": "support gesture"])
            #expect(granted.status == .created)
            let merged = try await AccountMergeTests.merge(
                client, into: Self.customer, from: Self.anonymous, key: support)
            #expect(merged.status == .ok)
            // Someone else's purchase, which the erasure must leave as it is.
            let other = try await Self.submit(
                client, harness, account: "bystander", try Self.pricedTransaction(harness, id: "8301", token: nil))
            #expect(other.status == .ok)
            try await harness.projectReports()
            let revenueQuery = "/v1/admin/reports/revenue?from=2025-01-01&to=2025-03-01&by=month&app=\(H.appOne)"
            let revenueBefore = try await client.call(.get, revenueQuery, key: admin)
            #expect(revenueBefore.status == .ok)
            #expect((revenueBefore.json["totals"] as? [Any])?.isEmpty == false)
            let before = try await harness.store.verifyLedgerChain(appID: nil, since: nil)
            #expect(before.isIntact)
            #expect(before.erased == 0)

            // Support may merge and grant, not erase: erasure cannot be undone.
            let bySupport = try await Self.erase(client, Self.customer, key: support)
            #expect(bySupport.status == .forbidden)
            #expect(Self.code(bySupport) == "wrong_key_scope")

            harness.clock.set(H.day(5))
            let erased = try await Self.erase(client, Self.customer, key: admin)
            #expect(erased.status == .ok)
            let pseudonym = try #require(erased.json["pseudonym"] as? String)
            #expect(pseudonym.hasPrefix("erased-"))
            #expect(erased.json["aliases"] as? Int == 1)
            let counts = erased.json["erased"] as? [String: Int] ?? [:]
            #expect((counts["ledger_entries"] ?? 0) > 0)
            #expect(counts["receipts"] == 2)
            #expect(counts["orders"] == 1)
            #expect(counts["grants"] == 1)

            // The reports' totals do not change.
            try await harness.projectReports()
            let revenueAfter = try await client.call(.get, revenueQuery, key: admin)
            func canonical(_ value: Any?) throws -> String {
                String(
                    decoding: try JSONSerialization.data(
                        withJSONObject: ["totals": value ?? NSNull()], options: [.sortedKeys]),
                    as: UTF8.self)
            }
            #expect(try canonical(revenueAfter.json["totals"]) == canonical(revenueBefore.json["totals"]))

            // Every chain verifies; the erased rows are counted as such.
            let after = try await harness.store.verifyLedgerChain(appID: nil, since: nil)
            #expect(after.isIntact, "\(after.breaks)")
            #expect(after.erased > 0)

            // `account.erased`, under the pseudonym, queued for the app's endpoint.
            let events = try await harness.pool.query(
                """
                SELECT e.account_id, count(d.delivery_id) FROM webhook_events e
                LEFT JOIN webhook_deliveries d ON d.event_id = e.event_id
                WHERE e.event_type = 'account.erased' GROUP BY e.account_id
                """
            ).map { "\(try $0.decode(String.self, at: 0)) \(try $0.decode(Int64.self, at: 1))" }
            #expect(events.contains("\(pseudonym) 1"))

            // The audit log has the erasure under the pseudonym.
            let audited = try await harness.pool.query(
                "SELECT target::text, status FROM audit_log WHERE method = 'DELETE' AND status = 200"
            ).map { try $0.decode(String.self, at: 0) }
            #expect(audited.count == 1)
            #expect(audited.first?.contains(pseudonym) == true)

            // The whole database, projections and report aggregates included: neither id, nor the token.
            let dump = try Self.dump()
            #expect(dump.contains("bystander"), "the dump holds the data")
            #expect(!dump.contains(Self.customer))
            #expect(!dump.contains(Self.anonymous))
            #expect(!dump.lowercased().contains(token.lowercased()))
            for line in dump.split(separator: "\n")
            where line.contains(Self.customer) || line.contains(Self.anonymous)
                || line.lowercased().contains(token.lowercased())
            {
                Issue.record("the dump still holds an erased id: \(line.prefix(300))")
            }

            // What names the id later is refused as erased, and stores nothing.
            let read = try await client.call(.get, "/v1/accounts/\(Self.customer)/entitlements", key: harness.keyOne)
            #expect(read.status == .gone)
            #expect(read.json.errorCode == "account_erased")
            let receipts = try await GrantTests.count("SELECT count(*) FROM receipts", harness)
            let again = try await Self.submit(
                client, harness, account: Self.customer,
                try harness.signedTransaction(id: "8102", purchasedOnDay: 5, expiresOnDay: 35))
            #expect(again.status == .gone)
            #expect(again.json.errorCode == "account_erased")
            let asAlias = try await Self.submit(
                client, harness, account: Self.anonymous,
                try harness.signedTransaction(id: "8202", product: "coins.100", purchasedOnDay: 5, expiresOnDay: nil))
            #expect(asAlias.status == .gone)
            #expect(try await GrantTests.count("SELECT count(*) FROM receipts", harness) == receipts)
            let twice = try await Self.erase(client, Self.customer, key: admin)
            #expect(twice.status == .gone)
            #expect(Self.code(twice) == "account_erased")
            let grant = try await GrantTests.send(
                client, .post, "/v1/accounts/\(Self.customer)/grants", key: admin,
                ["bundle_id": H.appOne, "entitlement_id": "pro", "duration": "30d", "reason": "after erasure"])
            #expect(grant.status == .gone)
            #expect(Self.code(grant) == "account_erased")
            let into = try await AccountMergeTests.merge(client, into: Self.customer, from: "newcomer", key: support)
            #expect(into.status == .gone)
            #expect(Self.code(into) == "account_erased")

            // An unknown account.
            let unknown = try await Self.erase(client, "never-seen", key: admin)
            #expect(unknown.status == .notFound)
            #expect(Self.code(unknown) == "account_not_found")
            let noApp = try await Self.erase(client, "bystander", key: admin, bundleID: "com.example.none")
            #expect(noApp.status == .notFound)
            #expect(Self.code(noApp) == "unknown_app")

            // The requests refused as erased are in the audit log, without the id they named: the whole database,
            // the audit log included, still holds neither id.
            let refused = try await harness.pool.query(
                "SELECT target::text FROM audit_log WHERE status = 410 ORDER BY audit_id"
            ).map { try $0.decode(String.self, at: 0) }
            #expect(refused.count == 3)
            let later = try Self.dump()
            for line in later.split(separator: "\n") where line.contains(Self.customer) || line.contains(Self.anonymous)
            {
                Issue.record("after the refused requests, the dump holds an erased id: \(line.prefix(300))")
            }
        }
    }

    /// The erased id is known by HMAC-SHA256 under the installation's erasure key (sealed with the secret keys), not
    /// by a digest anyone could compute from a guessed id; ids erased under schema step 47's plain SHA-256 are still
    /// refused.
    @Test func theErasedIdIsKnownByAKeyedDigestOnly() async throws {
        try await H.run { harness, client in
            let admin = try await harness.keys.create(bundleID: nil, name: "ops").secret
            harness.clock.set(H.day(1))
            let bought = try await Self.submit(
                client, harness, account: Self.customer,
                try harness.signedTransaction(id: "8601", purchasedOnDay: 1, expiresOnDay: 31))
            #expect(bought.status == .ok)
            let appID = try #require(try await harness.catalog.app(bundleID: H.appOne)).appID
            #expect(try await Self.erase(client, Self.customer, key: admin).status == .ok)

            let message = Data("subledger-account-erasure|\(appID)|\(Self.customer)".utf8)
            let stored = try await harness.pool.query(
                "SELECT account_digest, digest_scheme FROM erased_accounts WHERE app_id = \(appID)"
            ).map { (try $0.decode([UInt8].self, at: 0), try $0.decode(String.self, at: 1)) }
            #expect(stored.count == 1)
            #expect(stored.first?.1 == "hmac-sha256")
            #expect(stored.first?.0 != Array(SHA256.hash(data: message)), "a digest of the id alone")
            // The key is stored sealed: opened with the secret keys, it gives the stored digest.
            let sealedRow = try await harness.pool.query("SELECT key_sealed, key_id FROM account_erasure_keys")
            #expect(sealedRow.count == 1)
            let sealed = SealedSecret(
                keyID: try sealedRow[0].decode(String.self, at: 1),
                combined: try sealedRow[0].decode([UInt8].self, at: 0))
            let keyText = try harness.catalog.secretKeys.open(sealed, for: .accountErasureKey)
            let key = SymmetricKey(data: try #require(Data(base64Encoded: keyText)))
            #expect(key.bitCount == 256)
            #expect(stored.first?.0 == Array(HMAC<SHA256>.authenticationCode(for: message, using: key)))

            // An id erased before the keyed digest, known by its plain SHA-256: still refused as erased.
            let legacy = "legacy-4e21aa"
            let legacyDigest = Array(SHA256.hash(data: Data("subledger-account-erasure|\(appID)|\(legacy)".utf8)))
            let pseudonym = "erased-\(UUID().uuidString.lowercased())"
            try await harness.pool.query(
                """
                WITH erasure AS (
                    INSERT INTO account_erasures (app_id, pseudonym, erased_by, erased_at)
                    VALUES (\(appID), \(pseudonym), 'step 47', now()) RETURNING erasure_id)
                INSERT INTO erased_accounts (app_id, account_digest, erasure_id, pseudonym, digest_scheme)
                SELECT \(appID), \(legacyDigest), erasure_id, \(pseudonym), 'sha256' FROM erasure
                """)
            let refused = try await Self.submit(
                client, harness, account: legacy,
                try harness.signedTransaction(id: "8602", purchasedOnDay: 1, expiresOnDay: 31))
            #expect(refused.status == .gone)
            #expect(refused.json.errorCode == "account_erased")
            #expect(try await Self.erase(client, legacy, key: admin).status == .gone)
        }
    }

    /// `secrets rotate-key` re-seals the erasure key with the new secret key: a process holding only the new key still
    /// opens it, so the erased id stays refused after the old key is retired.
    @Test func theErasureKeyIsResealedByAKeyRotation() async throws {
        try await H.run { harness, client in
            let admin = try await harness.keys.create(bundleID: nil, name: "ops").secret
            harness.clock.set(H.day(1))
            let bought = try await Self.submit(
                client, harness, account: Self.customer,
                try harness.signedTransaction(id: "8651", purchasedOnDay: 1, expiresOnDay: 31))
            #expect(bought.status == .ok)
            #expect(try await Self.erase(client, Self.customer, key: admin).status == .ok)
            let old = harness.catalog.secretKeys
            let new = SecretKey.generate()
            let resealing = try await SecretStore(
                pool: harness.pool, secretKeys: try SecretKeyring(keys: [new] + old.keys), logger: TestDatabase.logger
            ).reseal()
            #expect(resealing.resealedErasureKey)
            let onlyNew = try SecretKeyring(keys: [new])
            let status = try await SecretStore(pool: harness.pool, secretKeys: onlyNew, logger: TestDatabase.logger)
                .status()
            #expect(status.missingKeyIDs == [])
            let app = try #require(
                try await CatalogStore(pool: harness.pool, secretKeys: onlyNew).app(bundleID: H.appOne))
            #expect(try await AccountErasureStore(pool: harness.pool).isErased(try AccountID(Self.customer), app: app))
            #expect(!(try await AccountErasureStore(pool: harness.pool).isErased(try AccountID("bystander"), app: app)))
            // A process with a key that never sealed it stops at start, naming the key it needs.
            let stranger = try SecretKeyring(keys: [SecretKey.generate()])
            let missing = try await SecretStore(pool: harness.pool, secretKeys: stranger, logger: TestDatabase.logger)
                .status().missingKeyIDs
            #expect(missing.contains(new.id))
            let erasureKeyID = try await harness.pool.query("SELECT key_id FROM account_erasure_keys").single()
                .decode(String.self, at: 0)
            #expect(erasureKeyID == new.id)
        }
    }

    /// A process without secret keys cannot seal the erasure key: the erasure is refused and changes nothing.
    @Test func anErasureWithoutASecretKeyIsRefused() async throws {
        try await H.run { harness, client in
            harness.clock.set(H.day(1))
            let bought = try await Self.submit(
                client, harness, account: Self.customer,
                try harness.signedTransaction(id: "8701", purchasedOnDay: 1, expiresOnDay: 31))
            #expect(bought.status == .ok)
            var keyless = try #require(try await harness.catalog.app(bundleID: H.appOne))
            keyless.erasureKeys = AccountErasureKeys(secretKeys: SecretKeyring())
            let store = AccountErasureStore(pool: harness.pool)
            await #expect(throws: AccountErasureConflict.secretKeyRequired) {
                _ = try await store.erase(
                    try AccountID(Self.customer), app: keyless, actor: "ops", now: harness.clock.now)
            }
            #expect(ErasureError(AccountErasureConflict.secretKeyRequired).code.rawValue == "erasure_needs_secret_key")
            #expect(try await GrantTests.count("SELECT count(*) FROM account_erasures", harness) == 0)
            #expect(
                try await GrantTests.count(
                    "SELECT count(*) FROM receipts WHERE account_id = \(Self.customer)", harness) == 1)
        }
    }

    /// A submission of the account made while its erasure runs waits for it (the account's lock) and is refused:
    /// nothing of it is stored under the id. The erasure is held after its rewrite of the submissions (a table it
    /// updates later is locked by a second connection) until the submission waits on the account's lock.
    @Test func aSubmissionDuringTheErasureIsRefusedAndStoresNothing() async throws {
        try await H.run { harness, client in
            harness.clock.set(H.day(1))
            let bought = try await Self.submit(
                client, harness, account: Self.customer,
                try harness.signedTransaction(id: "8801", purchasedOnDay: 1, expiresOnDay: 31))
            #expect(bought.status == .ok)
            let waiting: PostgresQuery = """
                SELECT count(*) FILTER (WHERE locktype = 'relation' AND relation = 'import_rows'::regclass),
                    count(*) FILTER (WHERE locktype = 'advisory')
                FROM pg_locks WHERE NOT granted AND database = (SELECT oid FROM pg_database WHERE datname = current_database())
                """
            let holder = Task {
                try await harness.pool.withConnection { connection in
                    _ = try connection.query("BEGIN")
                    _ = try connection.query("LOCK TABLE import_rows IN EXCLUSIVE MODE")
                    // Until the erasure waits on the table and the submission on the account's lock (bounded).
                    for _ in 0..<1_200 {
                        let row = try connection.query(waiting).single()
                        if try row.decode(Int64.self, at: 0) >= 1, try row.decode(Int64.self, at: 1) >= 1 { break }
                        usleep(25_000)
                    }
                    _ = try connection.query("COMMIT")
                }
            }
            func until(_ done: @Sendable (Int64, Int64) -> Bool) async throws {
                for _ in 0..<1_200 {
                    let row = try await harness.pool.query(waiting).single()
                    if done(try row.decode(Int64.self, at: 0), try row.decode(Int64.self, at: 1)) { return }
                    try await Task.sleep(for: .milliseconds(25))
                }
            }
            // The erasure beside the client's request (the test client sends one request at a time).
            let app = try #require(try await harness.catalog.app(bundleID: H.appOne))
            let erasure = Task {
                try await AccountErasureStore(pool: harness.pool).erase(
                    try AccountID(Self.customer), app: app, actor: "ops", now: harness.clock.now)
            }
            try await until { relation, _ in relation >= 1 }
            let submission = Task {
                try await Self.submit(
                    client, harness, account: Self.customer,
                    try harness.signedTransaction(id: "8802", purchasedOnDay: 1, expiresOnDay: 31)
                ).status
            }
            try await holder.value
            #expect(try await erasure.value.pseudonym.hasPrefix("erased-"))
            #expect(try await submission.value == .gone)
            #expect(
                try await GrantTests.count(
                    "SELECT count(*) FROM receipts WHERE account_id = \(Self.customer)", harness) == 0)
            #expect(try await GrantTests.count("SELECT count(*) FROM receipts", harness) == 1)
        }
    }

    /// An erased row changed again, or a row rewritten like an erasure without its record, reads as changed.
    @Test func rowsRewrittenWithoutAMatchingErasureRecordStillReadAsChanged() async throws {
        try await H.run { harness, client in
            let admin = try await harness.keys.create(bundleID: nil, name: "ops").secret
            harness.clock.set(H.day(1))
            for (account, id) in [(Self.customer, "8401"), ("bystander", "8501")] {
                let bought = try await Self.submit(
                    client, harness, account: account,
                    try harness.signedTransaction(id: id, purchasedOnDay: 1, expiresOnDay: 31))
                #expect(bought.status == .ok)
            }
            #expect(try await Self.erase(client, Self.customer, key: admin).status == .ok)
            #expect(try await harness.store.verifyLedgerChain(appID: nil, since: nil).isIntact)

            // The bystander's entry rewritten the way an erasure would, with no record: changed, not erased.
            try await harness.pool.query(
                """
                UPDATE ledger_entries SET account_id = 'erased-00000000-0000-4000-8000-000000000000'
                WHERE account_id = 'bystander'
                """)
            // The erased receipt changed after its erasure: changed too.
            try await harness.pool.query(
                "UPDATE receipts SET body = '{\"forged\": true}' WHERE account_id LIKE 'erased-%'")
            let verification = try await harness.store.verifyLedgerChain(appID: nil, since: nil)
            let broken = Set(verification.breaks.map { "\($0.chainID) \($0.table) \($0.kind.rawValue)" })
            #expect(broken == ["8401 receipts changed", "8501 ledger_entries changed"])
        }
    }
}
