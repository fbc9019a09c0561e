import AppStore
import AppStoreClients
import AsyncHTTPClient
import Foundation
import HTTPTestSupport
import SubLedgerCore
import Testing

@Suite struct VerifyReceiptClientTests {
    static let validBody =
        #"{"status":0,"environment":"Production","receipt":{"bundle_id":"com.example","request_date_ms":"1700000000000","in_app":[{"product_id":"p","transaction_id":"1","original_transaction_id":"1","purchase_date_ms":"1699000000000"}]}}"#

    static func configuration(
        _ server: StubHTTPServer, timeout: Duration = .seconds(30), first: StoreEnvironment = .production
    ) -> VerifyReceiptClient.Configuration {
        VerifyReceiptClient.Configuration(
            sharedSecret: "app-shared-secret",
            productionURL: "\(server.baseURL)/production/verifyReceipt",
            sandboxURL: "\(server.baseURL)/sandbox/verifyReceipt",
            excludeOldTransactions: true,
            firstEnvironment: first,
            timeout: timeout
        )
    }

    static func verify(
        timeout: Duration = .seconds(30),
        first: StoreEnvironment = .production,
        handler: @escaping StubHTTPServer.Handler
    ) async throws -> (VerifyReceiptOutcome, [StubRequest]) {
        try await StubHTTPServer.with(handler: handler) { server in
            try await withTestHTTPClient { http in
                let client = VerifyReceiptClient(
                    httpClient: http,
                    configuration: configuration(server, timeout: timeout, first: first),
                    now: { Instant(millisecondsSince1970: 1_700_000_000_500) }
                )
                return (await client.verify(receiptData: "BASE64RECEIPT"), server.requests)
            }
        }
    }

    enum Expected: String, CustomTestStringConvertible {
        case valid, invalidReceipt, configurationError, retryable, upstreamFailure
        var testDescription: String { rawValue }

        func matches(_ outcome: VerifyReceiptOutcome) -> Bool {
            switch (self, outcome) {
            case (.valid, .valid), (.invalidReceipt, .invalidReceipt), (.configurationError, .configurationError),
                (.retryable, .retryable), (.upstreamFailure, .upstreamFailure):
                return true
            default:
                return false
            }
        }
    }

    static let statusTable: [(String, Expected)] = [
        (#"{"status":0,"receipt":{"bundle_id":"com.example","in_app":[]}}"#, .valid),
        (#"{"status":21006,"receipt":{"bundle_id":"com.example","in_app":[]}}"#, .valid),
        (#"{"status":21000}"#, .invalidReceipt),
        (#"{"status":21002}"#, .invalidReceipt),
        (#"{"status":21003}"#, .invalidReceipt),
        (#"{"status":21010}"#, .invalidReceipt),
        (#"{"status":21004}"#, .configurationError),
        (#"{"status":21005}"#, .retryable),
        (#"{"status":21009}"#, .retryable),
        (#"{"status":21100,"is-retryable":true}"#, .retryable),
        (#"{"status":21150}"#, .retryable),
        (#"{"status":"21199","is-retryable":"true"}"#, .retryable),
        (#"{"status":21150,"is-retryable":false}"#, .upstreamFailure),
        (#"{"status":21001}"#, .upstreamFailure),
        (#"{"status":99999}"#, .upstreamFailure),
    ]

    @Test(arguments: statusTable)
    func statusCodeTable(body: String, expected: Expected) async throws {
        let (outcome, requests) = try await Self.verify { _ in .json(body) }
        #expect(expected.matches(outcome), "\(body) gave \(outcome)")
        #expect(requests.count == 1)
    }

    @Test func statusClassificationCoversEveryDocumentedCode() {
        #expect(VerifyReceiptStatus(status: 0, isRetryable: nil) == .valid)
        #expect(VerifyReceiptStatus(status: 21006, isRetryable: nil) == .valid)
        #expect(VerifyReceiptStatus(status: 21007, isRetryable: nil) == .useSandbox)
        #expect(VerifyReceiptStatus(status: 21008, isRetryable: nil) == .useProduction)
        for code in [21000, 21002, 21003, 21010] {
            #expect(VerifyReceiptStatus(status: code, isRetryable: nil) == .invalidReceipt)
        }
        #expect(VerifyReceiptStatus(status: 21004, isRetryable: nil) == .configurationError)
        for code in [21005, 21009] { #expect(VerifyReceiptStatus(status: code, isRetryable: nil) == .retryable) }
        for code in 21100...21199 {
            #expect(VerifyReceiptStatus(status: code, isRetryable: true) == .retryable)
            #expect(VerifyReceiptStatus(status: code, isRetryable: false) == .upstreamFailure)
        }
    }

    @Test func requestCarriesReceiptSecretAndExcludeFlag() async throws {
        let (outcome, requests) = try await Self.verify { _ in .json(Self.validBody) }
        guard case .valid(let verified) = outcome else {
            Issue.record("expected valid, got \(outcome)")
            return
        }
        #expect(verified.answeredBy == .production)
        #expect(verified.snapshot.transactions.count == 1)
        #expect(verified.snapshot.requestDate == Instant(millisecondsSince1970: 1_700_000_000_000))
        let request = try #require(requests.first)
        #expect(request.method == "POST")
        #expect(request.path == "/production/verifyReceipt")
        let json = try #require(try JSONSerialization.jsonObject(with: request.body) as? [String: Any])
        #expect(json["receipt-data"] as? String == "BASE64RECEIPT")
        #expect(json["password"] as? String == "app-shared-secret")
        #expect(json["exclude-old-transactions"] as? Bool == true)
    }

    @Test func status21007RetriesAgainstSandboxAndUsesItsAnswer() async throws {
        let (outcome, requests) = try await Self.verify { request in
            request.path.hasPrefix("/production")
                ? .json(#"{"status":21007}"#)
                : .json(Self.validBody.replacingOccurrences(of: "Production", with: "Sandbox"))
        }
        guard case .valid(let verified) = outcome else {
            Issue.record("expected valid, got \(outcome)")
            return
        }
        #expect(verified.answeredBy == .sandbox)
        #expect(verified.snapshot.environment == .sandbox)
        #expect(requests.map(\.path) == ["/production/verifyReceipt", "/sandbox/verifyReceipt"])
        #expect(requests[0].body == requests[1].body)
    }

    @Test func status21008RetriesAgainstProduction() async throws {
        let (outcome, requests) = try await Self.verify(first: .sandbox) { request in
            request.path.hasPrefix("/sandbox") ? .json(#"{"status":21008}"#) : .json(Self.validBody)
        }
        guard case .valid(let verified) = outcome else {
            Issue.record("expected valid, got \(outcome)")
            return
        }
        #expect(verified.answeredBy == .production)
        #expect(requests.map(\.path) == ["/sandbox/verifyReceipt", "/production/verifyReceipt"])
    }

    @Test func redirectionHappensAtMostOnce() async throws {
        let (outcome, requests) = try await Self.verify { request in
            request.path.hasPrefix("/production") ? .json(#"{"status":21007}"#) : .json(#"{"status":21008}"#)
        }
        guard case .upstreamFailure(let failure) = outcome else {
            Issue.record("expected upstreamFailure, got \(outcome)")
            return
        }
        #expect(failure.code == .environmentLoop)
        #expect(requests.count == 2)
    }

    @Test func htmlPageWithStatus200IsRetryableNotInvalid() async throws {
        let (outcome, _) = try await Self.verify { _ in
            StubResponse(
                status: 200, headers: [("Content-Type", "text/html")], body: Data("<html>Maintenance</html>".utf8))
        }
        guard case .retryable(let failure) = outcome else {
            Issue.record("expected retryable, got \(outcome)")
            return
        }
        #expect(failure.code == .malformedResponse)
    }

    /// A status-0 answer holding an impossible date or id is refused, not retried: the stored receipt would
    /// otherwise be verified again and again.
    @Test(arguments: [
        #""expires_date_ms":"9223372036854775807""#, #""expires_date_ms":"-5""#,
        #""expires_date_ms":"1700000000000","cancellation_reason":"99999999999""#,
    ])
    func answerWithAnImpossibleValueIsInvalidNotRetryable(field: String) async throws {
        let body = Self.validBody.replacingOccurrences(
            of: #""purchase_date_ms":"1699000000000""#, with: #""purchase_date_ms":"1699000000000","# + field)
        let (outcome, _) = try await Self.verify { _ in .json(body) }
        guard case .invalidReceipt(let failure) = outcome else {
            Issue.record("expected invalidReceipt, got \(outcome)")
            return
        }
        #expect(failure.code == .impossibleValue)
        let (longID, _) = try await Self.verify { _ in
            .json(
                Self.validBody.replacingOccurrences(
                    of: #""transaction_id":"1""#,
                    with: #""transaction_id":""# + String(repeating: "7", count: 10_000) + #"""#))
        }
        guard case .invalidReceipt = longID else {
            Issue.record("expected invalidReceipt for a 10 KB id, got \(longID)")
            return
        }
    }

    @Test func http503IsRetryable() async throws {
        let (outcome, _) = try await Self.verify { _ in StubResponse(status: 503, body: Data("busy".utf8)) }
        guard case .retryable(let failure) = outcome else {
            Issue.record("expected retryable, got \(outcome)")
            return
        }
        #expect(failure.code == .httpStatus)
        #expect(failure.httpStatus == 503)
    }

    @Test func timeoutIsRetryable() async throws {
        let (outcome, _) = try await Self.verify(timeout: .milliseconds(300)) { _ in
            var response = StubResponse.json(Self.validBody)
            response.delay = .seconds(3)
            return response
        }
        guard case .retryable(let failure) = outcome else {
            Issue.record("expected retryable, got \(outcome)")
            return
        }
        #expect(failure.code == .timeout)
    }

    @Test func bodyThatNeverFinishesTimesOut() async throws {
        // The body would arrive complete after 5 s; a `.timeout` failure proves the client gave up first.
        let (outcome, _) = try await Self.verify(timeout: .milliseconds(400)) { _ in
            var response = StubResponse.json(Self.validBody)
            response.bodyDelay = .seconds(5)
            return response
        }
        guard case .retryable(let failure) = outcome else {
            Issue.record("expected retryable, got \(outcome)")
            return
        }
        #expect(failure.code == .timeout)
    }

    @Test func connectionRefusedIsRetryable() async throws {
        // Start and stop a server to get a port nothing listens on.
        let server = try await StubHTTPServer.start { _ in .json("{}") }
        let configuration = Self.configuration(server, timeout: .seconds(1))
        await server.shutdown()
        let outcome = try await withTestHTTPClient { http in
            await VerifyReceiptClient(httpClient: http, configuration: configuration).verify(receiptData: "x")
        }
        guard case .retryable(let failure) = outcome else {
            Issue.record("expected retryable, got \(outcome)")
            return
        }
        // AsyncHTTPClient retries a refused connection until the request's deadline, so which of the two
        // surfaces depends on timing; either way Apple was unreachable and the call is retried later.
        #expect([.connectionError, .timeout].contains(failure.code))
    }

    @Test func receiptOfAnotherAppIsInvalidWhenBundleIDsAreRestricted() async throws {
        try await StubHTTPServer.with(handler: { _ in .json(Self.validBody) }) { server in
            try await withTestHTTPClient { http in
                var configuration = Self.configuration(server)
                configuration.acceptedBundleIDs = ["com.other"]
                let outcome = await VerifyReceiptClient(httpClient: http, configuration: configuration).verify(
                    receiptData: "x")
                guard case .invalidReceipt(let failure) = outcome else {
                    Issue.record("expected invalidReceipt, got \(outcome)")
                    return
                }
                #expect(failure.code == .bundleMismatch)
                #expect(!failure.description.contains("app-shared-secret"))
            }
        }
    }
}

/// A sandbox receipt's two calls share one deadline: with a fresh one each, a verification could take twice its
/// timeout (and more, queued behind other calls).
@Suite struct VerifyReceiptDeadlineTests {
    @Test func aRedirectedReceiptGetsOneDeadlineForBothCalls() async throws {
        // Each answer takes 1 s; the deadline is 1.5 s: production's 21007 fits, the sandbox call does not.
        let (outcome, _) = try await VerifyReceiptClientTests.verify(timeout: .milliseconds(1_500)) { request in
            try? await Task.sleep(for: .seconds(1))
            return request.path.hasPrefix("/production")
                ? .json(#"{"status":21007}"#) : .json(VerifyReceiptClientTests.validBody)
        }
        guard case .retryable(let failure) = outcome else {
            Issue.record("expected the deadline to pass, got \(outcome)")
            return
        }
        #expect(failure.code == .timeout)
    }
}
