import AppStore
import AppStoreSimulator
import AppStoreStore
import CatalogFile
import Foundation
import GooglePlayStore
import NIOCore
import SubLedgerCore
import SubLedgerHTTP
import SubLedgerReports
import SubLedgerStore
import SubLedgerTestSupport
import SubLedgerUseCases
import Testing

/// Apple asks about a refund (`CONSUMPTION_REQUEST`): SubLedger answers in appstore-sim with what the ledger
/// and the app server know, only with the customer's consent, once per notification, retrying Apple's
/// passing failures.
@Suite struct ConsumptionEndToEndTests {
    typealias E = EndToEndHarness

    /// App one's catalog with consumption answers on, and the simulator's Server API key for app one.
    static func enableConsumption(_ e: E, policy: String = "{ enabled: true, refund_preference: decline }") async throws
    {
        let yaml = ServiceHarness.catalogYAML.replacingOccurrences(
            of: "    shared_secret: one-secret\n", with: "    shared_secret: one-secret\n    consumption: \(policy)\n")
        let (catalog, _) = try CatalogFile.read(yaml)
        let simApp = try e.control.app(E.bundleID)
        let pem = try #require(simApp.serverAPI.privateKeyPEM)
        try await e.service.catalog.applyCatalog(
            catalog,
            secrets: [
                E.bundleID: AppSecrets(
                    serverAPI: .init(
                        issuerID: simApp.serverAPI.issuerID, keyID: simApp.serverAPI.keyID, privateKeyPEM: pem))
            ])
    }

    /// The obligation sender as every `serve` and `poll` process builds it (`StoreObligationSender.live`), with
    /// the simulator as Apple and the simulator's clock.
    static func sender(_ e: E, worker: String = "consumption-e2e", once: Bool = false) throws
        -> StoreObligationSender
    {
        let gateway = try AppleGateway(
            configuration: AppleConfiguration(
                verifyReceiptProductionURL: e.sim.productionVerifyReceiptURL,
                verifyReceiptSandboxURL: e.sim.sandboxVerifyReceiptURL, trustAppleRoot: false, timeout: .seconds(20),
                serverAPIProductionURL: e.sim.serverAPIBaseURL(.production),
                serverAPISandboxURL: e.sim.serverAPIBaseURL(.sandbox)),
            additionalRoots: [e.sim.trustedRoot], logger: TestDatabase.logger)
        var configuration = StoreObligationSender.Configuration(worker: worker)
        configuration.once = once
        return StoreObligationSender.live(
            configuration: configuration, pool: e.service.pool, catalog: e.service.catalog,
            gateways: StoreGateways(apple: gateway),
            logger: TestDatabase.logger, now: { Instant(millisecondsSince1970: e.control.clock().now) })
    }

    /// Buys `product` on a new Apple ID and submits the signed transaction for `account`; returns its id.
    static func buy(_ e: E, _ account: String, product: String = "coins.100") async throws -> String {
        let bought = try await e.control.purchase(
            PurchaseRequest(appleID: try e.appleID(), bundleID: E.bundleID, productID: product))
        let signed = try #require(bought.signedTransaction)
        let submitted = try await e.client.call(
            .post, "/v1/transactions", key: e.key, json: ["account_id": account, "signed_transaction": signed])
        #expect(submitted.status == .ok)
        return try #require(bought.transactionID)
    }

    static func post(_ e: E, _ path: String, _ body: String) async throws -> (status: Int, json: [String: Any]) {
        let answer = try await e.client.call(.post, path, key: e.key, raw: ByteBuffer(string: body))
        return (Int(answer.status.code), answer.json)
    }

    /// The consumption report through `/v1/admin/reports/consumption`, as JSON.
    static func report(_ e: E) async throws -> [String: Any] {
        let admin = try await e.service.keys.create(bundleID: nil, name: "ops").secret
        let answer = try await e.client.call(
            .get, "/v1/admin/reports/consumption?format=json&from=2000-01-01&to=2100-01-01", key: admin)
        #expect(answer.status == .ok)
        return answer.json
    }

    static func requestStates(_ e: E) async throws -> [String: String] {
        var states: [String: String] = [:]
        for row in try await e.service.pool.query("SELECT transaction_id, state FROM consumption_requests") {
            states[try row.decode(String.self, at: 0)] = try row.decode(String.self, at: 1)
        }
        return states
    }

    static func object(_ body: String) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any])
    }

    /// With consent: Apple receives one V2 answer computed from the ledger and the app's report; a replay of
    /// the notification records no second request; without consent nothing is sent.
    @Test func consentedRequestIsAnsweredOnceAndUnconsentedOneIsNot() async throws {
        try await E.run { e in
            try await Self.enableConsumption(e)
            let cora = try await Self.buy(e, "cora")
            let nico = try await Self.buy(e, "nico")
            #expect(try await Self.post(e, "/v1/accounts/cora/consent", #"{"consented": true}"#).status == 201)
            let usage = try await Self.post(
                e, "/v1/accounts/cora/usage",
                #"{"transaction_id": "\#(cora)", "consumption_percentage": 25.5, "play_time_minutes": 90}"#)
            #expect(usage.status == 201)
            #expect(usage.json["consumption_percentage"] as? Double == 25.5)
            // Nico consented once, then withdrew.
            #expect(
                try await Self.post(
                    e, "/v1/accounts/nico/consent", #"{"consented": true, "at": "2020-01-01T00:00:00Z"}"#
                ).status == 201)
            #expect(try await Self.post(e, "/v1/accounts/nico/consent", #"{"consented": false}"#).status == 201)

            let asked = try await e.control.requestConsumption(cora)
            _ = try await e.control.requestConsumption(nico)
            #expect(try await Self.requestStates(e) == [cora: "pending", nico: "pending"])

            let report = try await Self.sender(e).runCycle()
            #expect(report.sent == 1)
            #expect(report.skipped == 1)
            #expect(try await Self.requestStates(e) == [cora: "sent", nico: "skipped_no_consent"])
            // The admin page's obligations panel counts the answer sent and the one skipped.
            let panel = try await e.service.pool.withConnection { try StoreObligationsPanel.load(on: $0) }
            let answers = try #require(panel.rows.first { $0.kind == "send_consumption_information" })
            #expect(answers.store == "app_store")
            let counts: [Int] = [answers.waiting, answers.sent, answers.skipped, answers.failed]
            #expect(counts == [0, 1, 1, 0])

            let received = e.control.receivedConsumptionInformation()
            #expect(received.count == 1)
            let call = try #require(received.first)
            #expect(call.transactionID == cora)
            #expect(call.version == "v2")
            #expect(call.accepted)
            let body = try Self.object(call.body)
            #expect(body["customerConsented"] as? Bool == true)
            #expect(body["sampleContentProvided"] as? Bool == false)
            #expect(body["deliveryStatus"] as? String == "DELIVERED")
            #expect(body["consumptionPercentage"] as? Int == 25_500)
            #expect(body["refundPreference"] as? String == "DECLINE")
            #expect(body.count == 5)

            // Apple delivers the same notification again: it is a duplicate, and so is its request.
            let uuid = try #require(asked.notificationUUIDs.first)
            let stored = try await e.service.pool.query(
                "SELECT body FROM notifications WHERE notification_id = \(uuid)"
            ).single().decode(String.self, at: 0)
            let replay = try await e.client.call(
                .post, "/v1/notifications/appstore", key: nil, raw: ByteBuffer(string: stored))
            #expect(replay.status == .ok)
            let count = try await e.service.pool.query("SELECT count(*) FROM consumption_requests").single()
            #expect(try count.decode(Int64.self, at: 0) == 2)
            #expect(try await Self.sender(e).runCycle() == StoreObligationSender.CycleReport())
            #expect(e.control.receivedConsumptionInformation().count == 1)

            // The audit trail and the report say the same.
            let outcomes = try await e.service.pool.query(
                "SELECT outcome, endpoint, http_status FROM consumption_request_attempts ORDER BY attempt_id")
            #expect(
                try outcomes.map { try $0.decode(String.self, at: 0) }.sorted() == ["accepted", "skipped_no_consent"])
            let listed = try await Self.report(e)
            #expect((listed["rows"] as? [[String: Any]])?.count == 2)
            #expect(
                Set((listed["totals"] as? [[String: Any]] ?? []).compactMap { $0["state"] as? String }) == [
                    "sent", "skipped_no_consent",
                ])
            #expect(listed["deadline_misses"] as? Int == 0)
        }
    }

    /// Apple failing for a moment (503) is retried after the backoff and then answered; a 4xx is final; a
    /// request left past Apple's 12 hours is a deadline miss.
    @Test func transientFailureIsRetriedAndDeadlineMissIsReported() async throws {
        try await E.run { e in
            try await Self.enableConsumption(e)
            let rita = try await Self.buy(e, "rita")
            #expect(try await Self.post(e, "/v1/accounts/rita/consent", #"{"consented": true}"#).status == 201)
            _ = try await e.control.requestConsumption(rita)
            let sender = try Self.sender(e)

            e.control.setFault(FaultRule(kind: .http503, remaining: 1), for: .serverAPI)
            let first = try await sender.runCycle()
            #expect(first.retrying == 1)
            #expect(try await Self.requestStates(e) == [rita: "retry"])
            // Not due again before the backoff.
            #expect(try await sender.runCycle() == StoreObligationSender.CycleReport())

            _ = await e.control.advanceClock(.init(seconds: 61))
            let second = try await sender.runCycle()
            #expect(second.sent == 1)
            #expect(try await Self.requestStates(e) == [rita: "sent"])
            let attempts = try await e.service.pool.query(
                "SELECT outcome, http_status FROM consumption_request_attempts ORDER BY attempt_id")
            #expect(try attempts.map { try $0.decode(String.self, at: 0) } == ["transient_failure", "accepted"])
            #expect(try attempts.map { try $0.decode(Int32?.self, at: 1) } == [503, 202])
            let calls = try await e.service.pool.query(
                "SELECT attempts FROM consumption_requests"
            ).single().decode(Int32.self, at: 0)
            #expect(calls == 2)

            // A request nobody answers within 12 hours: the job gives up on it and the report counts the miss.
            let late = try await Self.buy(e, "lena")
            _ = try await e.control.requestConsumption(late)
            _ = await e.control.advanceClock(.init(hours: 13))
            #expect(try await sender.runCycle().failed == 1)
            #expect(try await Self.requestStates(e)[late] == "failed")
            let listed = try await Self.report(e)
            #expect(listed["deadline_misses"] as? Int == 1)
        }
    }

    /// The older endpoint, when the catalog names it: Apple's V1 buckets, accepted by the simulator's checks.
    @Test func v1EndpointSendsTheOlderBuckets() async throws {
        try await E.run { e in
            try await Self.enableConsumption(
                e, policy: "{ enabled: true, refund_preference: grant, endpoint: v1, sample_content_provided: true }")
            let vera = try await Self.buy(e, "vera")
            #expect(try await Self.post(e, "/v1/accounts/vera/consent", #"{"consented": true}"#).status == 201)
            #expect(
                try await Self.post(
                    e, "/v1/accounts/vera/usage",
                    #"{"transaction_id": "\#(vera)", "consumption_percentage": 100, "play_time_minutes": 30}"#
                )
                .status == 201)
            _ = try await e.control.requestConsumption(vera)
            #expect(try await Self.sender(e).runCycle().sent == 1)
            let call = try #require(e.control.receivedConsumptionInformation().first)
            #expect(call.version == "v1")
            #expect(call.accepted)
            let body = try Self.object(call.body)
            #expect(body["customerConsented"] as? Bool == true)
            #expect(body["sampleContentProvided"] as? Bool == true)
            #expect(body["deliveryStatus"] as? Int == 0)
            #expect(body["consumptionStatus"] as? Int == 3)
            #expect(body["playTime"] as? Int == 2)
            #expect(body["refundPreference"] as? Int == 1)
            #expect(body["platform"] as? Int == 1)
            #expect(body["userStatus"] as? Int == 1)
            #expect(body["accountTenure"] as? Int == 1)
            #expect(body["lifetimeDollarsPurchased"] as? Int == 2)  // 0.99 USD
            #expect(body["lifetimeDollarsRefunded"] as? Int == 1)
            #expect(body["appAccountToken"] as? String == "")
        }
    }

    /// Without the catalog's consent to answer, requests are recorded and skipped (by the sender as
    /// `poll --once` runs it).
    @Test func disabledPolicyRecordsAndSkips() async throws {
        try await E.run { e in
            let dora = try await Self.buy(e, "dora")
            #expect(try await Self.post(e, "/v1/accounts/dora/consent", #"{"consented": true}"#).status == 201)
            _ = try await e.control.requestConsumption(dora)
            try await Self.sender(e, once: true).run()
            #expect(try await Self.requestStates(e) == [dora: "skipped_disabled"])
            #expect(e.control.receivedConsumptionInformation().isEmpty)
        }
    }

    /// Bad consent and usage reports are refused with a code naming the defect; nothing is stored.
    @Test func badConsentAndUsageInputGetClearErrors() async throws {
        try await E.run { e in
            let cases: [(String, String, String)] = [
                ("/v1/accounts/ann/consent", "{}", "missing_consented"),
                ("/v1/accounts/ann/consent", #"{"consented": "yes"}"#, "malformed_json"),
                ("/v1/accounts/ann/consent", #"{"consented": true, "when": "now"}"#, "unknown_field"),
                ("/v1/accounts/ann/consent", #"{"consented": true, "at": "yesterday"}"#, "invalid_time"),
                ("/v1/accounts/ann/consent", #"{"consented": true, "at": "2999-01-01T00:00:00Z"}"#, "invalid_time"),
                ("/v1/accounts/ann/consent", "not json", "malformed_json"),
                ("/v1/accounts/a%20b/consent", #"{"consented": true}"#, "invalid_account_id"),
                ("/v1/accounts/ann/usage", #"{"consumption_percentage": 10}"#, "missing_transaction_id"),
                (
                    "/v1/accounts/ann/usage", #"{"transaction_id": "abc", "play_time_minutes": 1}"#,
                    "invalid_transaction_id"
                ),
                ("/v1/accounts/ann/usage", #"{"transaction_id": "1"}"#, "empty_usage_report"),
                (
                    "/v1/accounts/ann/usage", #"{"transaction_id": "1", "consumption_percentage": 150}"#,
                    "invalid_consumption_percentage"
                ),
                (
                    "/v1/accounts/ann/usage", #"{"transaction_id": "1", "consumption_percentage": 1.2345}"#,
                    "invalid_consumption_percentage"
                ),
                ("/v1/accounts/ann/usage", #"{"transaction_id": "1", "play_time_minutes": -1}"#, "invalid_play_time"),
                (
                    "/v1/accounts/ann/usage", #"{"transaction_id": "1", "delivery_status": "lost"}"#,
                    "invalid_delivery_status"
                ),
                ("/v1/accounts/ann/usage", #"{"transaction_id": "1", "percent": 5}"#, "unknown_field"),
            ]
            for (path, body, code) in cases {
                let answer = try await Self.post(e, path, body)
                #expect(answer.status == 400, "\(path) \(body)")
                #expect(answer.json.errorCode == code, "\(path) \(body)")
            }
            let stored = try await e.service.pool.query(
                "SELECT (SELECT count(*) FROM consumption_consents) + (SELECT count(*) FROM consumption_usage_reports)")
            #expect(try stored.single().decode(Int64.self, at: 0) == 0)
            // Append-only: the database refuses to change a report.
            #expect(try await Self.post(e, "/v1/accounts/ann/consent", #"{"consented": true}"#).status == 201)
            await #expect(throws: (any Error).self) {
                try await e.service.pool.query("UPDATE consumption_consents SET consented = false")
            }
        }
    }

    /// Several processes: each request's answer is leased to one of them only, and only its holder can finish it.
    @Test func concurrentSendersClaimEachAnswerOnce() async throws {
        try await E.run { e in
            var asked: [String] = []
            for account in ["pia", "pam", "pat", "pel"] {
                let id = try await Self.buy(e, account)
                _ = try await e.control.requestConsumption(id)
                asked.append(id)
            }
            let store = StoreObligationStore(pool: e.service.pool)
            let now = Instant(millisecondsSince1970: e.control.clock().now)
            async let first = store.claimDue(limit: 3, lease: .seconds(300), worker: "a", now: now)
            async let second = store.claimDue(limit: 3, lease: .seconds(300), worker: "b", now: now)
            let (a, b) = try await (first, second)
            #expect(Set(a.map(\.id)).isDisjoint(with: b.map(\.id)))
            #expect((a + b).allSatisfy { $0.obligation.kind == .sendConsumptionInformation })
            #expect(Set((a + b).map(\.obligation.transactionID)) == Set(asked))
            #expect(try await store.claimDue(limit: 10, lease: .seconds(300), worker: "c", now: now).isEmpty)
            let claimed = try #require(a.first)
            let outcome = StoreObligationStore.Outcome.skipped(detail: "skipped_disabled")
            #expect(try await !store.finish(claimed, outcome, worker: "b", now: now))
            #expect(try await store.finish(claimed, outcome, worker: "a", now: now))
            // A lease that ran out is claimed again by another process.
            let later = now.adding(milliseconds: 301_000)
            let reclaimed = try await store.claimDue(limit: 10, lease: .seconds(300), worker: "c", now: later)
            #expect(reclaimed.count == 3)
        }
    }

    /// A `serve` process alone (no `poll`) answers Apple: its sender, running as the service `serve` adds to its
    /// group, sends the answer the notification's apply owed.
    @Test func serveAloneAnswersARequest() async throws {
        try await E.run { e in
            try await Self.enableConsumption(e)
            let sara = try await Self.buy(e, "sara")
            #expect(try await Self.post(e, "/v1/accounts/sara/consent", #"{"consented": true}"#).status == 201)
            _ = try await e.control.requestConsumption(sara)
            let kinds = try await e.service.pool.query("SELECT kind, state FROM store_obligations")
                .map { try "\($0.decode(String.self, at: 0)) \($0.decode(String.self, at: 1))" }
            #expect(kinds == ["send_consumption_information pending"])

            let sender = try Self.sender(e, worker: "serve-test-host-1")
            let running = Task { try await sender.run() }
            var state = "pending"
            for _ in 0..<600 where state == "pending" {
                try await Task.sleep(for: .milliseconds(50))
                state = try await Self.requestStates(e)[sara] ?? "missing"
            }
            running.cancel()
            _ = await running.result
            #expect(state == "sent")
            #expect(e.control.receivedConsumptionInformation().map(\.transactionID) == [sara])
        }
    }

    /// A request recorded before step 49 had no obligation: the step queues one for every request still waiting,
    /// and the sender answers it.
    @Test func requestPendingBeforeTheStepIsAnsweredAfterIt() async throws {
        try await E.run { e in
            try await Self.enableConsumption(e)
            let olga = try await Self.buy(e, "olga")
            let omar = try await Self.buy(e, "omar")
            #expect(try await Self.post(e, "/v1/accounts/olga/consent", #"{"consented": true}"#).status == 201)
            _ = try await e.control.requestConsumption(olga)
            _ = try await e.control.requestConsumption(omar)
            // Omar's was answered before the upgrade (skipped); Olga's still waits. Before step 49 neither had an
            // obligation.
            try await e.service.pool.query(
                "UPDATE consumption_requests SET state = 'skipped_no_consent' WHERE transaction_id = \(omar)")
            try await e.service.pool.query("DELETE FROM store_obligations")
            // The step's own queueing statement (its last part), as `migrate` runs it.
            let step = try #require(
                try Migrator.bundled(logger: TestDatabase.logger).script.steps.first { $0.version == 49 })
            let queueing = try #require(step.sql.range(of: "-- Every request still waiting"))
            try await e.service.pool.execute(script: String(step.sql[queueing.lowerBound...]))
            let queued = try await e.service.pool.query("SELECT transaction_id FROM store_obligations")
                .map { try $0.decode(String.self, at: 0) }
            #expect(queued == [olga])

            var report = StoreObligationSender.CycleReport()
            report.sent = 1
            #expect(try await Self.sender(e).runCycle() == report)
            #expect(try await Self.requestStates(e) == [olga: "sent", omar: "skipped_no_consent"])
            #expect(e.control.receivedConsumptionInformation().map(\.transactionID) == [olga])
        }
    }
}
