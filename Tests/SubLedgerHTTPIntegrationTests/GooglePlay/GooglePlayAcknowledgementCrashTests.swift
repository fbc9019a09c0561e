import CatalogFile
import Foundation
import GooglePlay
import GooglePlayClients
import GooglePlaySimulator
import GooglePlayStore
import PostgresLibPQ
import SubLedgerCore
import SubLedgerStore
import SubLedgerTestSupport
import SubLedgerUseCases
import Testing

/// A real `subledger serve` killed with SIGKILL after it credited a Google Play purchase and before it acknowledged
/// it: the acknowledgement is in the database with the credit, and the next process sends it well within Google's
/// three days, so play-sim never refunds the purchase.
@Suite(.serialized) struct GooglePlayAcknowledgementCrashTests {
    @Test func aPurchaseCreditedByAServeKilledBeforeAcknowledgingItIsAcknowledgedByTheNextProcess() async throws {
        // play-sim on the wall clock's day, so the purchase is current for `serve` (which uses the system clock).
        let sim = try await GooglePlaySimulator.start(
            .init(
                startTime: Instant.systemNow(),
                packages: [
                    PackageDefinition(
                        packageName: GooglePlayPurchaseEndToEndTests.packageName,
                        subscriptions: [
                            SubscriptionDefinition(
                                productId: "pro",
                                basePlans: [BasePlanDefinition(basePlanId: "monthly", billingPeriod: .oneMonth)])
                        ])
                ]))
        do {
            try await TestDatabase.withSchema(maxConnections: 4, template: .ledger) { schema, _, pool in
                try await Self.scenario(sim: sim, schema: schema, pool: pool)
            }
        } catch {
            try? await sim.shutdown()
            throw error
        }
        try await sim.shutdown()
    }

    static func scenario(sim: GooglePlaySimulator, schema: String, pool: PostgresPool) async throws {
        let migrator = try Migrator.bundled(logger: TestDatabase.logger)
        try await migrator.migrate(pool)
        let secretKey = SecretKey.generate()
        let catalog = CatalogStore(pool: pool, secretKeys: try SecretKeyring(keys: [secretKey]))
        let (definitions, _) = try CatalogFile.read(GooglePlayPurchaseEndToEndTests.catalogYAML)
        try await catalog.applyCatalog(
            definitions,
            secrets: [
                GooglePlayPurchaseEndToEndTests.bundleID: AppSecrets(
                    stores: .googlePlay(
                        serviceAccountKey: String(decoding: try sim.serviceAccountKey.jsonData(), as: UTF8.self)))
            ])
        let key = try await APIKeys(store: APIKeyStore(pool: pool)).create(
            bundleID: GooglePlayPurchaseEndToEndTests.bundleID, name: "crash"
        ).secret
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("google-crash-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let keyFile = directory.appendingPathComponent("secret.key")
        try Data((secretKey.base64 + "\n").utf8).write(to: keyFile)
        var url = try TestDatabase.connectionString()
        url += (url.contains("?") ? "&" : "?") + "options=-c%20search_path%3D\(schema)"
        let arguments = [
            "serve", "--database-url", url, "--secret-key-file", keyFile.path,
            "--google-play-api-url", sim.developerAPIBaseURL, "--google-push-keys-url", sim.jwksURL,
            "--log-level", "info",
        ]
        let log = directory.appendingPathComponent("serve.log")

        func acknowledgement(_ token: String) async throws -> (state: String, leased: Bool)? {
            try await pool.query(
                "SELECT state, leased_by IS NOT NULL FROM store_obligations WHERE purchase_token = \(token)"
            ).first.map { (try $0.decode(String.self, at: 0), try $0.decode(Bool.self, at: 1)) }
        }

        // Submit a purchase and kill the process as soon as it answered. The sender runs every 5 s, so it almost
        // never acknowledges in between; when it did, the window was missed and another purchase is tried.
        var crashed: PurchaseDescription?
        for attempt in 0..<5 where crashed == nil {
            let served = ServedSubLedger(arguments: arguments, logURL: log)
            try await served.start()
            let bought = try await sim.control.purchase(
                PurchaseRequest(
                    packageName: GooglePlayPurchaseEndToEndTests.packageName, productId: "pro", basePlanId: "monthly",
                    obfuscatedExternalAccountId: "alice-\(attempt)"))
            let body = try JSONSerialization.data(withJSONObject: [
                "account_id": "alice-\(attempt)", "package_name": GooglePlayPurchaseEndToEndTests.packageName,
                "product_id": "pro", "purchase_token": bought.purchaseToken,
            ])
            let request =
                "POST /v1/purchases/google HTTP/1.1\r\nHost: crash\r\nAuthorization: Bearer \(key)\r\n"
                + "Content-Type: application/json\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
            let outcome = await RawHTTPConnection.exchange(
                port: served.port, request: Array(request.utf8) + Array(body), timeout: 60)
            served.kill9()
            guard case .answered(let response) = outcome else {
                Issue.record("no answer to the purchase: \(outcome)\n\(served.logTail())")
                return
            }
            #expect(response.status == 200, "\(String(decoding: response.body, as: UTF8.self))")
            let owed = try await acknowledgement(bought.purchaseToken)
            #expect(owed != nil, "the credit's acknowledgement is in the outbox")
            if owed?.state == "pending", owed?.leased == false,
                try sim.control.describe(bought.purchaseToken).acknowledged == false
            {
                crashed = bought
            }
        }
        let purchase = try #require(crashed, "the process was never killed between credit and acknowledgement")

        // Two days later (Google refunds on the third) another process starts, and its sender acknowledges it.
        _ = try await sim.control.advanceClock(ClockAdvanceRequest(days: 2))
        let next = ServedSubLedger(arguments: arguments, logURL: log)
        try await next.start()
        defer { next.stop() }
        let deadline = Date().addingTimeInterval(120)
        while try sim.control.describe(purchase.purchaseToken).acknowledged == false, Date() < deadline {
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(try sim.control.describe(purchase.purchaseToken).acknowledged, "\(next.logTail())")
        // Google has it before the sender records it: the outbox says `sent` once its answer is written back.
        while try await acknowledgement(purchase.purchaseToken)?.state != "sent", Date() < deadline {
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(try await acknowledgement(purchase.purchaseToken)?.state == "sent")

        // Past the three days: the purchase stands, still alice's.
        _ = try await sim.control.advanceClock(ClockAdvanceRequest(days: 2))
        #expect(try sim.control.describe(purchase.purchaseToken).state == "active")
        #expect(sim.control.voidedPurchases().isEmpty)
    }
}
