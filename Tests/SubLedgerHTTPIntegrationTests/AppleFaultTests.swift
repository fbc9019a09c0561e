import AppStore
import AppStoreSimulator
import AppStoreStore
import Foundation
import HTTPTypes
import SubLedgerComposition
import SubLedgerCore
import SubLedgerHTTP
import SubLedgerStore
import SubLedgerTestSupport
import SubLedgerUseCases
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Apple slow, refusing connections, or asked about another app's receipt; the database down at start.
@Suite struct AppleFaultTests {
    typealias E = EndToEndHarness
    typealias H = ServiceHarness

    /// A receipt of app B posted with app A's key is refused at once as foreign (read offline), not
    /// answered 502 and retried for ever as Apple's 21004 would have it.
    @Test func anotherAppsReceiptIsRefusedAsForeignWithoutAskingApple() async throws {
        try await E.run { e in
            _ = try e.control.createApp(
                AppDefinition(
                    bundleID: "com.example.other", sharedSecret: "other-secret",
                    products: [
                        ProductDefinition(
                            productID: "other.monthly", type: .autoRenewable, subscriptionGroupID: "o1",
                            duration: .oneMonth,
                            price: 1_990, currency: "USD")
                    ]))
            let bought = try await e.control.purchase(
                PurchaseRequest(appleID: try e.appleID(), bundleID: "com.example.other", productID: "other.monthly"))
            let answer = try await e.submitReceipt(bought.receiptData, account: "mallory")
            #expect(answer.status == .unprocessableContent)
            #expect(answer.json.errorCode == "foreign_receipt")
            let status = try await e.service.pool.query("SELECT status FROM receipts").single().decode(
                String.self, at: 0)
            #expect(status == "invalid")
        }
    }

    /// Apple slow but up. Many simultaneous sandbox receipts are all asked of Apple side by side: the client keeps
    /// enough connections, and the receipt's own environment (read offline) is asked first, so no call is spent on
    /// production. The simulator holds every call until all 40 are held at once, so a client that queued them behind
    /// a few connections (8 per host was the old default) would wait out its deadline; no time is measured.
    @Test func simultaneousSandboxReceiptsAreAskedSideBySideInTheirOwnEnvironment() async throws {
        try await E.run { e in
            var receipts: [String] = []
            for _ in 0..<40 {
                let bought = try await e.control.purchase(
                    PurchaseRequest(appleID: try e.appleID(.sandbox), bundleID: E.bundleID, productID: "pro.monthly"))
                receipts.append(bought.receiptData)
            }
            let gateway = try AppleGateway(
                configuration: AppleConfiguration(
                    verifyReceiptProductionURL: e.sim.productionVerifyReceiptURL,
                    verifyReceiptSandboxURL: e.sim.sandboxVerifyReceiptURL, trustAppleRoot: false,
                    timeout: .seconds(60)),
                additionalRoots: [e.sim.trustedRoot], logger: TestDatabase.logger)
            let ingestion = Ingestion(
                store: e.service.store, catalog: e.service.catalog, apple: gateway, logger: TestDatabase.logger,
                now: { Instant(millisecondsSince1970: e.control.clock().now) })
            let app = try #require(try await e.service.catalog.app(bundleID: E.bundleID))
            let before = e.control.verifyReceiptRequests()
            e.control.setFault(
                FaultRule(kind: .timeout, holdMs: 120_000, remaining: receipts.count, gather: receipts.count),
                for: .verifyReceipt)
            let verified = try await withThrowingTaskGroup(of: Bool.self) { group in
                for (index, receipt) in receipts.enumerated() {
                    group.addTask {
                        do {
                            _ = try await ingestion.submitReceipt(
                                receipt, account: try AccountID("tester\(index)"), orderID: nil,
                                clientTransactionID: nil,
                                app: app)
                            return true
                        } catch is IngestionError {
                            return false
                        }
                    }
                }
                return try await group.reduce(into: 0) { $0 += $1 ? 1 : 0 }
            }
            #expect(verified == receipts.count)
            let after = e.control.verifyReceiptRequests()
            #expect(after["production", default: 0] - before["production", default: 0] == 0)
            #expect(after["sandbox", default: 0] - before["sandbox", default: 0] == receipts.count)
        }
    }

    /// The simulator's `gather` fault answers held calls together once that many are held, and each held call
    /// on its own when its hold ends; it counts the calls each endpoint received.
    @Test func theSimulatorGathersHeldCallsAndCountsThem() async throws {
        try await E.run { e in
            let bought = try await e.control.purchase(
                PurchaseRequest(appleID: try e.appleID(.sandbox), bundleID: E.bundleID, productID: "pro.monthly"))
            let before = e.control.verifyReceiptRequests()
            // Three calls side by side, gathered by three: all answered although each could be held for 10 minutes.
            e.control.setFault(FaultRule(kind: .timeout, holdMs: 600_000, gather: 3), for: .verifyReceipt)
            let statuses = try await withThrowingTaskGroup(of: Int.self) { group in
                for _ in 0..<3 {
                    group.addTask {
                        try await Self.verifyReceiptStatus(bought.receiptData, at: e.sim.sandboxVerifyReceiptURL)
                    }
                }
                return try await group.reduce(into: [Int]()) { $0.append($1) }
            }
            #expect(statuses == [0, 0, 0])
            // Alone, a call gathered by two is answered when its short hold ends.
            e.control.setFault(FaultRule(kind: .timeout, holdMs: 50, gather: 2), for: .verifyReceipt)
            #expect(try await Self.verifyReceiptStatus(bought.receiptData, at: e.sim.sandboxVerifyReceiptURL) == 0)
            let after = e.control.verifyReceiptRequests()
            #expect(after["sandbox", default: 0] - before["sandbox", default: 0] == 4)
            #expect(after["production", default: 0] == before["production", default: 0])
        }
    }

    private static func verifyReceiptStatus(_ receipt: String, at url: String) async throws -> Int {
        var request = URLRequest(url: try #require(URL(string: url)))
        request.httpMethod = "POST"
        request.timeoutInterval = 900
        request.httpBody = try JSONSerialization.data(withJSONObject: [
            "receipt-data": receipt, "password": "one-secret",
        ])
        let (data, _) = try await URLSession.shared.data(for: request)
        let object = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        return try #require(object["status"] as? Int)
    }

    /// Apple refusing connections fails fast, and after repeated failures the circuit breaker
    /// answers 503 with `Retry-After` without calling Apple; every receipt is stored for the job all the same.
    @Test func appleRefusingConnectionsFailsFastThenTheBreakerAnswersAtOnce() async throws {
        let apple = AppleConfiguration(
            verifyReceiptProductionURL: "http://127.0.0.1:9/verifyReceipt",
            verifyReceiptSandboxURL: "http://127.0.0.1:9/sandbox/verifyReceipt", trustAppleRoot: false,
            timeout: .seconds(20), connectTimeout: .milliseconds(500), circuitBreakerThreshold: 2,
            circuitBreakerCooldown: .seconds(600))
        try await H.run(apple: apple) { harness, client in
            for attempt in 0..<4 {
                let answer = try await client.call(
                    .post, "/v1/receipts", key: harness.keyOne,
                    json: ["account_id": "victor", "receipt_data": "cmVjZWlwdC1\(attempt)"])
                #expect(answer.status == .serviceUnavailable)
                #expect(answer.json.errorCode == "apple_unavailable")
                let retryAfter = try #require(answer.headers[.retryAfter].flatMap { Int($0) })
                if attempt >= 2 {
                    // The breaker is open: it answers with the cooldown, without calling Apple.
                    #expect(retryAfter > 500)
                }
            }
            let stored = try await harness.pool.query("SELECT count(*) FROM receipts WHERE status = 'retry'").single()
            #expect(try stored.decode(Int64.self, at: 0) == 4)
        }
    }

    /// The breaker opens after the threshold, lets one trial through after the cooldown (others
    /// are still refused), and closes when Apple answers.
    @Test func theCircuitBreakerOpensTriesOnceAndCloses() async throws {
        let breaker = AppleCircuitBreaker(failureThreshold: 2, cooldown: .milliseconds(200))
        #expect(breaker.refusal() == nil)
        breaker.recordFailure()
        #expect(breaker.refusal() == nil)
        breaker.recordFailure()
        #expect(breaker.isOpen)
        #expect(breaker.refusal() != nil)
        try await Task.sleep(for: .milliseconds(250))
        #expect(breaker.refusal() == nil)  // the trial
        #expect(breaker.refusal() != nil)  // only one
        breaker.recordFailure()  // the trial failed: open again at once
        #expect(breaker.refusal() != nil)
        try await Task.sleep(for: .milliseconds(250))
        #expect(breaker.refusal() == nil)
        breaker.recordSuccess()
        #expect(!breaker.isOpen)
        #expect(breaker.refusal() == nil)
        #expect(breaker.refusal() == nil)
    }

    /// Item 16: `serve` with PostgreSQL unreachable starts anyway and answers `/health/ready` with 503.
    @Test func serveStartsWithoutTheDatabaseAndIsNotReady() async throws {
        let port = try LoopbackPort.free()
        var configuration = ServiceConfiguration(
            host: "127.0.0.1", port: port, databaseURL: "postgresql://subledger@127.0.0.1:9/subledger?connect_timeout=1"
        )
        configuration.logLevel = .critical
        let server = Task { try await SubLedgerServer.run(configuration: configuration) }
        defer { server.cancel() }
        var status: Int?
        for _ in 0..<300 where status == nil {
            try await Task.sleep(for: .milliseconds(100))
            if let url = URL(string: "http://127.0.0.1:\(port)/health/ready"),
                let (_, response) = try? await URLSession.shared.data(from: url)
            {
                status = (response as? HTTPURLResponse)?.statusCode
            }
        }
        #expect(status == 503)
        // Still serving (not exited) after the first failed attempts to reach the database.
        try await Task.sleep(for: .milliseconds(1_500))
        let url = try #require(URL(string: "http://127.0.0.1:\(port)/health/ready"))
        let (_, later) = try await URLSession.shared.data(from: url)
        #expect((later as? HTTPURLResponse)?.statusCode == 503)
        server.cancel()
        _ = await server.result
    }
}
