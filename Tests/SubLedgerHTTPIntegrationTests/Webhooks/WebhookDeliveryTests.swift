import AppStore
import Foundation
import HTTPTestSupport
import PostgresLibPQ
import SubLedgerCore
import SubLedgerTestSupport
import SubLedgerUseCases
import Synchronization
import Testing

@testable import SubLedgerHTTP
@testable import SubLedgerStore
@testable import SubLedgerUseCases

/// Delivery over real HTTP on loopback, against real PostgreSQL: retries, leases, signatures, pausing.
@Suite("Webhook delivery", .serialized)
struct WebhookDeliveryTests {
    @Test func everyEventReachesAReceiverThatFailsThirtyPercentOfTheTime() async throws {
        try await WebhookDeliveryHarness.with { harness in
            let received = ReceivedEvents()
            let random = Mutex(SystemRandomNumberGenerator())
            try await StubHTTPServer.with(handler: { request in
                if random.withLock({ Double.random(in: 0..<1, using: &$0) }) < 0.3 { return .empty(status: 503) }
                return received.accept(request) == nil ? .empty(status: 400) : .empty(status: 204)
            }) { receiver in
                try await harness.addEndpoint(url: receiver.baseURL + "/hooks")
                let ids = Set(try await harness.insertEvents(200).map { $0.uuidString.lowercased() })
                let deliverer = harness.deliverer()
                let done = try await harness.deliverUntil(deliverer) { received.distinct.count == ids.count }
                #expect(done)
                #expect(received.distinct == ids)
                #expect(received.badSignatures == 0)
                #expect(try await harness.states() == ["delivered": 200])
                // Some attempts failed and were retried: the attempts table holds them all.
                let attempts = try await harness.pool.query("SELECT count(*) FROM webhook_delivery_attempts")
                    .single().decode(Int64.self, at: 0)
                #expect(attempts > 200)
                let retried = receiver.requests.filter { ($0.header("SubLedger-Delivery-Attempt") ?? "1") != "1" }
                #expect(!retried.isEmpty)
                let first = try #require(receiver.requests.first)
                #expect(first.header("Content-Type") == "application/json")
                #expect(first.header("User-Agent")?.hasPrefix("SubLedger-Webhooks/") == true)
                #expect(first.header("SubLedger-Event-Type") == "entitlement.extended")
                #expect(first.header("SubLedger-Delivery-Id") != nil)
            }
        }
    }

    @Test func severalDeliverersNeverSendOneDeliveryTwice() async throws {
        try await WebhookDeliveryHarness.with { harness in
            let received = ReceivedEvents()
            try await StubHTTPServer.with(handler: { request in
                guard let id = received.accept(request) else { return .empty(status: 400) }
                received.begin(id)
                try? await Task.sleep(for: .milliseconds(5))
                received.end(id)
                return .empty(status: 200)
            }) { receiver in
                try await harness.addEndpoint(url: receiver.baseURL)
                let ids = try await harness.insertEvents(300)
                // A request that times out after the receiver took it is rightly sent again (at least once); a
                // machine slowed by other work must not turn that into a finding here, so no request times out.
                var sender = WebhookSender.Configuration()
                sender.timeout = .seconds(300)
                let deliverers = (0..<3).map { harness.deliverer(worker: "deliverer-\($0)", sender: sender) }
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for deliverer in deliverers {
                        group.addTask {
                            _ = try await harness.deliverUntil(deliverer, timeout: .seconds(60)) {
                                received.distinct.count == ids.count
                            }
                        }
                    }
                    try await group.waitForAll()
                }
                // The receiver always answers 200: anything received twice was sent twice.
                #expect(received.ids.count == ids.count)
                #expect(received.distinct.count == ids.count)
                #expect(received.overlaps == 0)
                let byDeliverer = try await harness.pool.query(
                    "SELECT count(DISTINCT deliverer) FROM webhook_delivery_attempts"
                ).single().decode(Int64.self, at: 0)
                #expect(byDeliverer >= 2)
            }
        }
    }

    @Test func anExpiredLeaseIsTakenOverAndALiveOneIsNot() async throws {
        try await WebhookDeliveryHarness.with { harness in
            let received = ReceivedEvents()
            try await StubHTTPServer.with(handler: { request in
                received.accept(request) == nil ? .empty(status: 400) : .empty(status: 200)
            }) { receiver in
                try await harness.addEndpoint(url: receiver.baseURL)
                try await harness.insertEvents(5)
                // A deliverer claims everything, then dies without recording anything.
                let claimed = try await harness.store.claimDue(
                    limit: 10, lease: .milliseconds(700), worker: "dead", now: Instant.systemNow())
                #expect(claimed.count == 5)
                let live = harness.deliverer(worker: "live")
                #expect(try await live.deliverDue().attempts == 0)
                try await Task.sleep(for: .milliseconds(800))
                let report = try await live.deliverDue()
                #expect(report.delivered == 5)
                #expect(received.distinct.count == 5)
                #expect(try await harness.states() == ["delivered": 5])
            }
        }
    }

    @Test func gracefulShutdownGivesBackLeasesOfDeliveriesNotSent() async throws {
        try await WebhookDeliveryHarness.with { harness in
            try await harness.addEndpoint(url: "http://127.0.0.1:9/never")
            try await harness.insertEvents(3)
            let store = harness.store
            _ = try await store.claimDue(limit: 10, lease: .seconds(600), worker: "leaving", now: Instant.systemNow())
            try await store.releaseAll(worker: "leaving")
            let leased = try await harness.pool.query(
                "SELECT count(*) FROM webhook_deliveries WHERE leased_by IS NOT NULL"
            ).single().decode(Int64.self, at: 0)
            #expect(leased == 0)
            let again = try await store.claimDue(
                limit: 10, lease: .seconds(1), worker: "next", now: Instant.systemNow())
            #expect(again.count == 3)
        }
    }

    @Test func redirectsAreNotFollowed() async throws {
        try await WebhookDeliveryHarness.with { harness in
            try await StubHTTPServer.with(handler: { _ in .empty(status: 200) }) { target in
                try await StubHTTPServer.with(handler: { _ in
                    StubResponse(status: 302, headers: [("Location", target.baseURL + "/elsewhere")])
                }) { receiver in
                    try await harness.addEndpoint(url: receiver.baseURL)
                    try await harness.insertEvents(1)
                    let report = try await harness.deliverer().deliverDue()
                    #expect(report.retrying == 1)
                    #expect(receiver.requests.count == 1)
                    #expect(target.requests.isEmpty)
                    let row = try await harness.pool.query(
                        "SELECT status, error FROM webhook_delivery_attempts"
                    ).single()
                    #expect(try row.decode(Int32?.self, at: 0) == 302)
                    #expect(try row.decode(String?.self, at: 1)?.contains("redirect, not followed") == true)
                }
            }
        }
    }

    @Test func responseBodiesAreReadAtMost64KiB() async throws {
        let big = Data(repeating: UInt8(ascii: "x"), count: 1024 * 1024)
        try await StubHTTPServer.with(handler: { _ in StubResponse(status: 200, body: big) }) { receiver in
            let sender = WebhookSender()
            let result = await sender.send(Self.delivery(url: receiver.baseURL), now: Instant.systemNow())
            #expect(result.status == 200)
            #expect(result.error == nil)
            #expect(result.responseBody.count == 64 * 1024)
            #expect(result.responseTruncated)
        }
    }

    /// The receiver answers only after two minutes, long after the sender's 300 ms: a sender that outwaited it
    /// would record its 200.
    @Test func aReceiverThatDoesNotAnswerInTimeIsAFailedAttempt() async throws {
        try await StubHTTPServer.with(handler: { _ in StubResponse(status: 200, delay: .seconds(120)) }) { receiver in
            var configuration = WebhookSender.Configuration()
            configuration.timeout = .milliseconds(300)
            let sender = WebhookSender(configuration: configuration)
            let result = await sender.send(Self.delivery(url: receiver.baseURL), now: Instant.systemNow())
            #expect(result.status == nil)
            #expect(result.error?.hasPrefix("timeout") == true, "\(result.error ?? "")")
        }
    }

    @Test func theDefaultTransportLimitsAreTheDocumentedOnes() {
        let configuration = WebhookSender.Configuration()
        #expect(configuration.timeout == .seconds(10))
        #expect(configuration.maximumResponseBytes == 65_536)
    }

    @Test func privateAddressesAreRefusedBeforeConnecting() async throws {
        let resolver = WebhookAddressResolver { host in
            switch host {
            case "hooks.internal.test": [WebhookURLPolicy.IPAddress("10.0.0.5")!]
            case "mixed.test":
                [WebhookURLPolicy.IPAddress("93.184.216.34")!, WebhookURLPolicy.IPAddress("169.254.169.254")!]
            case "public.test": [WebhookURLPolicy.IPAddress("93.184.216.34")!]
            case "localhost": [WebhookURLPolicy.IPAddress("10.0.0.5")!]
            default: throw WebhookURLError(.invalidURL, "unknown host")
            }
        }
        let sender = WebhookSender(resolver: resolver)
        #expect(
            await sender.refusal(url: "https://hooks.internal.test/h", allowPrivateNetwork: false)?
                .contains("private_webhook_address") == true)
        #expect(
            await sender.refusal(url: "https://mixed.test/h", allowPrivateNetwork: false)?
                .contains("169.254.169.254") == true)
        #expect(await sender.refusal(url: "https://public.test/h", allowPrivateNetwork: false) == nil)
        #expect(await sender.refusal(url: "https://hooks.internal.test/h", allowPrivateNetwork: true) == nil)
        // Plain http is for loopback development only: the name must resolve to loopback.
        #expect(await sender.refusal(url: "http://localhost:9000/", allowPrivateNetwork: true) != nil)
        #expect(
            await sender.refusal(url: "https://10.1.2.3/", allowPrivateNetwork: false)?
                .contains("private_webhook_address") == true)
        #expect(
            await sender.refusal(url: "http://hooks.example.com/", allowPrivateNetwork: false)?
                .contains("insecure_webhook_url") == true)
        #expect(await WebhookSender().refusal(url: "http://127.0.0.1:9/", allowPrivateNetwork: false) == nil)
    }

    @Test func aRefusedAddressIsRecordedAsAFailedAttemptWithoutARequest() async throws {
        try await WebhookDeliveryHarness.with { harness in
            let resolver = WebhookAddressResolver { _ in [WebhookURLPolicy.IPAddress("192.168.1.20")!] }
            try await harness.addEndpoint(url: "https://hooks.internal.test/h")
            try await harness.insertEvents(2)
            let report = try await harness.deliverer(resolver: resolver).deliverDue()
            #expect(report.retrying == 2)
            let errors = try await harness.pool.query("SELECT error FROM webhook_delivery_attempts").map {
                try $0.decode(String?.self, at: 0) ?? ""
            }
            #expect(errors.count == 2)
            #expect(errors.allSatisfy { $0.contains("private_webhook_address") && $0.contains("192.168.1.20") })
        }
    }

    @Test func duringARotationRequestsCarryBothSignatures() async throws {
        try await WebhookDeliveryHarness.with { harness in
            let received = ReceivedEvents()
            try await StubHTTPServer.with(handler: { request in
                // A receiver that still holds only the previous secret accepts the request.
                received.accept(request, secrets: [WebhookDeliveryHarness.previousSecret]) == nil
                    ? .empty(status: 401) : .empty(status: 200)
            }) { receiver in
                try await harness.addEndpoint(url: receiver.baseURL, previousExpiresIn: .seconds(3_600))
                try await harness.insertEvents(1)
                #expect(try await harness.deliverer().deliverDue().delivered == 1)
                let header = try #require(receiver.requests.first?.header(WebhookSignature.headerName))
                #expect(header.components(separatedBy: "v1=").count == 3)
                let body = try #require(receiver.requests.first?.body)
                try WebhookSignature.verify(
                    header: header, body: Array(body), secrets: [WebhookDeliveryHarness.secret],
                    now: Int64(Date().timeIntervalSince1970))
            }
        }
    }

    @Test func anExpiredPreviousSecretNoLongerSigns() async throws {
        try await WebhookDeliveryHarness.with { harness in
            try await StubHTTPServer.with(handler: { _ in .empty(status: 200) }) { receiver in
                try await harness.addEndpoint(url: receiver.baseURL, previousExpiresIn: .seconds(-60))
                try await harness.insertEvents(1)
                #expect(try await harness.deliverer().deliverDue().delivered == 1)
                let header = try #require(receiver.requests.first?.header(WebhookSignature.headerName))
                #expect(header.components(separatedBy: "v1=").count == 2)
            }
        }
    }

    @Test func aSealedSecretIsOpenedToSignAndOneThatCannotBeOpenedSendsNothing() async throws {
        try await WebhookDeliveryHarness.with { harness in
            let keys = try SecretKeyring(keys: [SecretKey.generate()])
            let received = ReceivedEvents()
            try await StubHTTPServer.with(handler: { request in
                received.accept(request) == nil ? .empty(status: 401) : .empty(status: 200)
            }) { receiver in
                let endpoint = UUID()
                let sealed = try keys.seal(
                    WebhookDeliveryHarness.secret,
                    for: .webhookSecret(endpointID: endpoint.uuidString.lowercased(), bundleID: "com.example.webhooks"))
                try await harness.pool.query(
                    """
                    INSERT INTO webhook_endpoints (endpoint_id, app_id, url, secret_sealed, secret_key_id)
                    VALUES (\(endpoint), \(harness.appID), \(receiver.baseURL), \(sealed.combined), \(sealed.keyID))
                    """)
                try await harness.insertEvents(1)
                var configuration = WebhookDeliverer.Configuration(worker: "sealed")
                configuration.retry = WebhookDeliveryHarness.quickRetry
                // Without the key: a failed attempt, and no request goes out unsigned.
                let keyless = WebhookDeliverer(
                    configuration: configuration,
                    store: WebhookDeliveryStore(pool: harness.pool, secretKeys: SecretKeyring()),
                    logger: TestDatabase.logger)
                #expect(try await keyless.deliverDue().retrying == 1)
                #expect(receiver.requests.isEmpty)
                try await Task.sleep(for: .milliseconds(50))
                let keyed = WebhookDeliverer(
                    configuration: configuration, store: WebhookDeliveryStore(pool: harness.pool, secretKeys: keys),
                    logger: TestDatabase.logger)
                #expect(try await harness.deliverUntil(keyed, timeout: .seconds(10)) { received.ids.count == 1 })
                #expect(received.badSignatures == 0)
            }
        }
    }

    @Test func anEndpointThatKeepsFailingIsPausedAndResumingDeliversTheBacklog() async throws {
        try await WebhookDeliveryHarness.with { harness in
            let failing = Mutex(true)
            let received = ReceivedEvents()
            try await StubHTTPServer.with(handler: { request in
                if failing.withLock({ $0 }) { return .empty(status: 500) }
                return received.accept(request) == nil ? .empty(status: 400) : .empty(status: 200)
            }) { receiver in
                let endpoint = try await harness.addEndpoint(url: receiver.baseURL)
                let first = try await harness.insertEvents(2)
                var retry = WebhookDeliveryHarness.quickRetry
                retry.pauseAfterFailures = 6
                retry.pauseAfter = .milliseconds(100)
                let deliverer = harness.deliverer(retry: retry)
                let paused = try await harness.deliverUntil(deliverer, timeout: .seconds(30)) {
                    try await harness.endpointState(endpoint).state == "paused"
                }
                #expect(paused)
                let state = try await harness.endpointState(endpoint)
                #expect(state.reason == "failing")
                #expect(state.failures >= 6)
                // The backlog waits: not sent, not failed.
                let later = try await harness.insertEvents(3)
                let attemptsWhilePaused = receiver.requests.count
                try await Task.sleep(for: .milliseconds(100))
                #expect(try await deliverer.deliverDue().attempts == 0)
                #expect(receiver.requests.count == attemptsWhilePaused)
                #expect(try await harness.states() == ["pending": 5])
                // The receiver is fixed and the endpoint resumed (what `webhooks resume` does).
                failing.withLock { $0 = false }
                try await harness.pool.query(
                    """
                    UPDATE webhook_endpoints SET state = 'active', paused_reason = NULL, paused_at = NULL,
                        consecutive_failures = 0
                    WHERE endpoint_id = \(endpoint)
                    """)
                let all = Set((first + later).map { $0.uuidString.lowercased() })
                #expect(try await harness.deliverUntil(deliverer, timeout: .seconds(30)) { received.distinct == all })
                #expect(try await harness.states() == ["delivered": 5])
                let resumed = try await harness.endpointState(endpoint)
                #expect(resumed.state == "active")
                #expect(resumed.failures == 0)
                #expect(!resumed.failingSince)
            }
        }
    }

    @Test func aDeliveryIsMarkedFailedOnlyWhenItsRetryWindowHasPassed() async throws {
        try await WebhookDeliveryHarness.with { harness in
            try await StubHTTPServer.with(handler: { _ in .empty(status: 500) }) { receiver in
                try await harness.addEndpoint(url: receiver.baseURL)
                try await harness.insertEvents(1)
                // Within its window a delivery keeps being retried, however often it fails.
                let patient = harness.deliverer()
                for _ in 0..<5 {
                    _ = try await patient.deliverDue()
                    try await Task.sleep(for: .milliseconds(50))
                }
                #expect(try await harness.states() == ["pending": 1])
                // Past the window (here: none) it fails at the first failure after its minimum attempts.
                var impatient = WebhookDeliveryHarness.quickRetry
                impatient.giveUpAfter = .zero
                impatient.minimumAttempts = 7
                impatient.pauseAfterFailures = 1_000
                let deliverer = harness.deliverer(retry: impatient)
                #expect(
                    try await harness.deliverUntil(deliverer, timeout: .seconds(30)) {
                        try await harness.states() == ["failed": 1]
                    })
                let attempts = try await harness.pool.query("SELECT attempts FROM webhook_deliveries")
                    .single().decode(Int32.self, at: 0)
                #expect(attempts == 7)
            }
        }
    }

    @Test func aRunningDelivererIsWokenByANewEvent() async throws {
        try await WebhookDeliveryHarness.with { harness in
            let received = ReceivedEvents()
            try await StubHTTPServer.with(handler: { request in
                received.accept(request) == nil ? .empty(status: 400) : .empty(status: 200)
            }) { receiver in
                try await harness.addEndpoint(url: receiver.baseURL)
                // The sweep is an hour: only the notification can wake it.
                let deliverer = harness.deliverer(sweep: .seconds(3_600))
                let running = Task { try await deliverer.run() }
                try await Task.sleep(for: .milliseconds(500))
                let started = ContinuousClock.now
                let ids = try await harness.insertEvents(1)
                // Only a wake can deliver before the hour's sweep; the bound only ends a test that would hang.
                while received.distinct.isEmpty, started.duration(to: .now) < .seconds(300) {
                    try await Task.sleep(for: .milliseconds(10))
                }
                running.cancel()
                _ = try? await running.value
                #expect(received.distinct == [ids[0].uuidString.lowercased()])
            }
        }
    }

    @Test func theDeliveryQueueIsMeasured() async throws {
        try await WebhookDeliveryHarness.with { harness in
            let endpoint = try await harness.addEndpoint(url: "http://127.0.0.1:9/")
            try await harness.insertEvents(4)
            var status = try await harness.store.queueStatus()
            #expect(status.pending == 4)
            #expect(status.oldestEventCreatedAt != nil)
            try await harness.pool.query(
                """
                UPDATE webhook_endpoints SET state = 'paused', paused_reason = 'manual' WHERE endpoint_id = \(endpoint)
                """)
            status = try await harness.store.queueStatus()
            #expect(status.pending == 0)
            #expect(status.oldestEventCreatedAt == nil)
        }
    }

    static func delivery(url: String) -> WebhookDeliveryStore.DueDelivery {
        WebhookDeliveryStore.DueDelivery(
            deliveryID: 1, eventID: UUID(), eventType: "entitlement.granted", body: #"{"id":"x"}"#,
            eventCreatedAt: Instant.systemNow(), endpointID: UUID(), url: url, allowPrivateNetwork: false,
            secrets: [WebhookDeliveryHarness.secret], secretError: nil, attempts: 0, origin: "event")
    }
}
