import AppStoreSimulator
import CatalogFile
import Foundation
import PostgresLibPQ
import StripeSimulator
import StripeStore
import SubLedgerCore
import SubLedgerStore
import SubLedgerTestSupport
import SubLedgerUseCases
import Testing

/// A real `subledger serve` killed with SIGKILL after it credited a web purchase that carried an external purchase
/// token and before it reported the token: the report, with its `requestIdentifier`, is in the database with the
/// credit, and the next process sends it under that same identifier, once.
@Suite(.serialized) struct ExternalPurchaseReportCrashTests {
    @Test func aReportOwedByAServeKilledBeforeSendingItIsSentByTheNextUnderItsStoredIdentifier() async throws {
        // Both simulators on the wall clock's instant, which `serve` uses: the token, the webhooks' signatures and the
        // line items' dates are all current for it.
        let start = Instant.systemNow()
        let apple = try await AppStoreSimulator.start(
            .init(
                seed: 13, startTime: start, notificationTimeout: .seconds(60),
                apps: [
                    AppDefinition(
                        bundleID: StripeHarness.bundleID, appAppleID: 1_111_111_111, sharedSecret: "web-secret",
                        products: [])
                ]))
        let stripe = try await StripeSimulator.start(
            .init(startTime: start, secretKey: StripeHarness.secretKey, deliveryTimeout: .seconds(120)))
        do {
            try await TestDatabase.withSchema(maxConnections: 4, template: .ledger) { schema, _, pool in
                try await Self.scenario(apple: apple, stripe: stripe, schema: schema, pool: pool)
            }
        } catch {
            try? await apple.shutdown()
            try? await stripe.shutdown()
            throw error
        }
        try await apple.shutdown()
        try await stripe.shutdown()
    }

    static func scenario(apple: AppStoreSimulator, stripe: StripeSimulator, schema: String, pool: PostgresPool)
        async throws
    {
        try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
        let secretKey = SecretKey.generate()
        let catalog = CatalogStore(pool: pool, secretKeys: try SecretKeyring(keys: [secretKey]))
        let (definitions, secrets) = try CatalogFile.read(
            ExternalPurchaseReportingTests.catalogYAML, sections: [StripeSecrets.catalogSection])
        let simApp = try apple.control.app(StripeHarness.bundleID)
        var appSecrets = secrets[StripeHarness.bundleID] ?? AppSecrets()
        appSecrets.serverAPI = .init(
            issuerID: simApp.serverAPI.issuerID, keyID: simApp.serverAPI.keyID,
            privateKeyPEM: try #require(simApp.serverAPI.privateKeyPEM))
        try await catalog.applyCatalog(definitions, secrets: [StripeHarness.bundleID: appSecrets])
        let key = try await APIKeys(store: APIKeyStore(pool: pool)).create(
            bundleID: StripeHarness.bundleID, name: "crash"
        )
        .secret
        _ = try await stripe.control.createProduct(name: "Pro", id: StripeHarness.product)
        let price = try await stripe.control.createPrice(product: StripeHarness.product, unitAmount: 999)

        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("external-crash-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let keyFile = directory.appendingPathComponent("secret.key")
        try Data((secretKey.base64 + "\n").utf8).write(to: keyFile)
        var url = try TestDatabase.connectionString()
        url += (url.contains("?") ? "&" : "?") + "options=-c%20search_path%3D\(schema)"
        func arguments(reachingApple: Bool) -> [String] {
            // The killed process cannot reach Apple (nothing listens on port 9), so whenever its sender runs between
            // the credit and the kill, the report stays owed and is never at Apple: no race with the sender's timer.
            let unreachable = "http://127.0.0.1:9"
            return [
                "serve", "--database-url", url, "--secret-key-file", keyFile.path, "--stripe-api-url", stripe.baseURL,
                "--server-api-url", reachingApple ? apple.serverAPIBaseURL(.production) : unreachable,
                "--server-api-sandbox-url", reachingApple ? apple.serverAPIBaseURL(.sandbox) : unreachable,
                "--log-level", "info",
            ]
        }
        let log = directory.appendingPathComponent("serve.log")

        func report(of externalPurchaseID: String) async throws -> (request: String, state: String, leased: Bool)? {
            try await pool.query(
                """
                SELECT r.request_identifier::text, r.state, o.leased_by IS NOT NULL
                FROM external_purchase_reports r JOIN external_purchase_tokens k ON k.token_id = r.token_id
                JOIN store_obligations o ON o.external_purchase_report_id = r.report_id
                WHERE k.external_purchase_id = \(externalPurchaseID)
                """
            ).first.map {
                (try $0.decode(String.self, at: 0), try $0.decode(String.self, at: 1), try $0.decode(Bool.self, at: 2))
            }
        }

        // A web purchase with its token, then the process killed as soon as Stripe's webhooks were answered. Its
        // sender may have tried Apple in between and failed; if the kill caught it holding the report's lease,
        // another purchase is tried.
        var crashed: (token: String, request: String)?
        var seen: [String] = []
        for attempt in 0..<5 where crashed == nil {
            let served = ServedSubLedger(arguments: arguments(reachingApple: false), logURL: log)
            try await served.start()
            stripe.control.addWebhookEndpoint(
                url: "http://127.0.0.1:\(served.port)/v1/notifications/stripe", secret: StripeHarness.webhookSecret)
            let token = try apple.control.issueExternalPurchaseToken(bundleID: StripeHarness.bundleID, .init())
            let body = try JSONSerialization.data(withJSONObject: [
                "account_id": "alice-\(attempt)", "product_id": StripeHarness.product, "price": price,
                "success_url": "https://example.com/paid", "external_purchase_token": token.token,
            ])
            let request =
                "POST /v1/checkout/stripe HTTP/1.1\r\nHost: crash\r\nAuthorization: Bearer \(key)\r\n"
                + "Content-Type: application/json\r\nContent-Length: \(body.count)\r\nConnection: close\r\n\r\n"
            let outcome = await RawHTTPConnection.exchange(
                port: served.port, request: Array(request.utf8) + Array(body), timeout: 60)
            guard case .answered(let response) = outcome, response.status == 201,
                let answer = try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any],
                let session = answer["checkout_session_id"] as? String
            else {
                served.kill9()
                Issue.record("no checkout: \(outcome)\n\(served.logTail())")
                return
            }
            _ = try await stripe.control.completeCheckout(session)
            served.kill9()
            let owed = try await report(of: token.externalPurchaseID)
            #expect(owed != nil, "the report is in the outbox with the credit")
            seen.append(owed.map { "\($0.state), leased \($0.leased)" } ?? "no report")
            if let owed, owed.state == "pending", !owed.leased,
                !apple.control.externalPurchaseReports().contains(where: { $0.requestIdentifier == owed.request })
            {
                crashed = (token.externalPurchaseID, owed.request)
            }
        }
        let (externalPurchaseID, requestIdentifier) = try #require(
            crashed, "never killed between credit and report: \(seen)")

        // The next process sends it, under the identifier stored before the crash.
        let next = ServedSubLedger(arguments: arguments(reachingApple: true), logURL: log)
        try await next.start()
        defer { next.stop() }
        let deadline = Date().addingTimeInterval(120)
        while try await report(of: externalPurchaseID)?.state != "confirmed", Date() < deadline {
            try await Task.sleep(for: .milliseconds(200))
        }
        #expect(try await report(of: externalPurchaseID)?.state == "confirmed", "\(next.logTail())")
        let accepted = apple.control.externalPurchaseReports().filter { $0.externalPurchaseID == externalPurchaseID }
        #expect(accepted.map(\.requestIdentifier) == [requestIdentifier])
        #expect(accepted.map(\.status) == ["LINE_ITEM"])
    }
}
