import AsyncHTTPClient
import BoundedHTTP
import Foundation
import HTTPTestSupport
import NIOPosix
import Paddle
import PaddleClients
import PaddleSimulator
import SubLedgerCore
import Testing

/// The events list read forward page by page, paddle-sim's notifications verified and read, and Paddle's refusals as
/// `PaddleAPIError`s.
@Suite struct PaddleAPIEventsAndErrorsTests {
    @Test func theEventsListIsReadForwardPageByPage() async throws {
        try await PaddleFixture.with { fixture in
            let (_, price) = try await fixture.monthlyPrice()
            let (transactionID, subscriptionID) = try await fixture.subscribe(price: price)
            await fixture.simulator.control.advance(seconds: 31 * 86_400)

            var events: [PaddleEvent] = []
            var after: String?
            var pages = 0
            while pages < 50 {
                let page = try await fixture.api.events(after: after, perPage: 4)
                pages += 1
                for entry in page.entries {
                    let event = try entry.event.get()
                    events.append(event)
                    // The body kept is the event's own JSON: it reads back as the same event.
                    #expect(try PaddleDecoding.decode(PaddleEvent.self, from: entry.body) == event)
                }
                after = page.nextAfter
                guard page.hasMore else { break }
            }
            #expect(pages > 2 && events.count > 8)
            #expect(
                events.map(\.eventID) == events.map(\.eventID).sorted()
                    && Set(events.map(\.eventID)).count == events.count)
            #expect(events.allSatisfy { $0.notificationID == nil })
            let types = events.map(\.eventType)
            #expect(types.contains(.transactionCompleted) && types.contains(.subscriptionCreated))
            #expect(types.filter { $0 == .transactionCompleted }.count == 2)  // the checkout's and the renewal's
            // The catalog's and the customer's events are kept, as entities the ledger does not read.
            #expect(events.contains { $0.eventType.rawValue == "product.created" && $0.entity == .other })
            let completed = events.filter { $0.eventType == .transactionCompleted }
            #expect(completed.first?.transactionID == transactionID)
            #expect(completed.allSatisfy { $0.subscriptionID == subscriptionID })
            #expect(events.map(\.occurredAt) == events.map(\.occurredAt).sorted())

            // Past the last event: nothing more, and the cursor stays.
            let end = try await fixture.api.events(after: after)
            #expect(end.entries.isEmpty && !end.hasMore && end.nextAfter == after)
            // Filtered by type.
            let created = try await fixture.api.events(perPage: 200, eventTypes: [.subscriptionCreated])
            #expect(created.events.map(\.eventType) == [.subscriptionCreated])
            #expect(created.events.first?.subscriptionID == subscriptionID)
        }
    }

    @Test func paddleSimsNotificationsVerifyAndRead() async throws {
        let receiver = try await StubHTTPServer.start { _ in .empty(status: 200) }
        do {
            try await PaddleFixture.with(webhookURL: receiver.baseURL + "/paddle") { fixture in
                let (_, price) = try await fixture.monthlyPrice()
                let (transactionID, _) = try await fixture.subscribe(price: price)
                let requests = receiver.requests
                #expect(requests.count > 5)
                var types: [PaddleEventType] = []
                for request in requests {
                    let header = request.header(PaddleWebhookSignature.headerName)
                    try PaddleWebhookSignature.verify(
                        header: header, body: request.body,
                        secretKeys: ["pdl_ntfset_retired", PaddleFixture.secretKey],
                        now: PaddleFixture.wallClock)
                    #expect(throws: PaddleSignatureError.outsideTolerance) {
                        try PaddleWebhookSignature.verify(
                            header: header, body: request.body, secretKeys: [PaddleFixture.secretKey],
                            now: PaddleFixture.wallClock.adding(milliseconds: 6000))
                    }
                    let notification = try PaddleNotification(body: request.body)
                    #expect(notification.notificationID.hasPrefix("ntf_"))
                    types.append(notification.event.eventType)
                    if notification.event.eventType == .transactionCompleted {
                        #expect(notification.event.transactionID == transactionID)
                    }
                }
                #expect(types.contains(.transactionCompleted) && types.contains(.subscriptionActivated))
            }
        } catch {
            await receiver.shutdown()
            throw error
        }
        await receiver.shutdown()
    }

    @Test func paddlesRefusalsArriveAsTypedErrors() async throws {
        try await PaddleFixture.with { fixture in
            await #expect {
                try await fixture.api.transaction("txn_01hv8wptq8987qeep44cyrewp9")
            } throws: { error in
                guard let error = error as? PaddleAPIError else { return false }
                return error.code == .notFound && error.httpStatus == 404 && error.paddleCode == "not_found"
                    && error.requestID?.isEmpty == false && error.detail?.isEmpty == false && !error.isRetryable
            }
            let stranger = PaddleAPI(
                httpClient: fixture.http, apiKey: "pdl_sdbx_apikey_someone_else",
                configuration: .init(baseURL: fixture.simulator.baseURL))
            await #expect {
                try await stranger.allSubscriptions()
            } throws: { error in
                (error as? PaddleAPIError).map { $0.code == .unauthorized && $0.paddleCode == "forbidden" } == true
            }
            // An id that could change the path is refused before anything is sent.
            for id in ["", "../events", "txn_1?x=1", String(repeating: "a", count: 65)] {
                await #expect(throws: PaddleAPIError(.invalidRequest, detail: "not a Paddle id")) {
                    try await fixture.api.subscription(id)
                }
            }
            #expect(fixture.sleeps.all.isEmpty)
        }
    }

    @Test func aFailedConnectionIsRetriedWithBackoffThenReported() async throws {
        // A port nothing listens on any more: a simulator's, after it stopped.
        let simulator = try await PaddleSimulator.start(.init(apiKey: PaddleFixture.apiKey))
        let gone = simulator.baseURL
        try await simulator.shutdown()
        var configuration = HTTPClient.Configuration()
        configuration.connectionPool.retryConnectionEstablishment = false
        let http = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: configuration)
        let sleeps = RecordedSleeps()
        let api = PaddleAPI(
            httpClient: http, apiKey: PaddleFixture.apiKey,
            configuration: .init(baseURL: gone, timeout: .seconds(5), retry: RetryPolicy(maximumAttempts: 3)),
            random: { 0.5 }, sleep: { sleeps.record($0) })
        await #expect(throws: PaddleAPIError(.connectionError)) { try await api.events() }
        // Two waits between three attempts: 500 ms and 1 s, each less a quarter (jitter 0.5 at a draw of 0.5).
        #expect(sleeps.all == [.milliseconds(375), .milliseconds(750)])
        try await http.shutdown()
    }

    @Test func theDefaultBaseURLIsPaddlesByEnvironment() {
        #expect(PaddleAPI.Configuration().baseURL == "https://api.paddle.com")
        #expect(PaddleAPI.Configuration(environment: .sandbox).baseURL == "https://sandbox-api.paddle.com")
        #expect(PaddleAPI.Configuration(baseURL: "http://127.0.0.1:12112/").baseURL == "http://127.0.0.1:12112")
    }
}
