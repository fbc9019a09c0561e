import AppStore
import AppStoreClients
import AppStoreTestSupport
import AsyncHTTPClient
import Crypto
import Foundation
import HTTPTestSupport
import SubLedgerCore
import Testing

@Suite struct AppStoreServerAPIClientTests {
    struct Fixture {
        var key = P256.Signing.PrivateKey()
        var chain: SigningChain
        var signer: JWSSigner { JWSSigner(chain: chain) }

        init() throws { chain = try TestChains.chain() }

        var checker: ServerAPITokenChecker {
            ServerAPITokenChecker(
                publicKey: key.publicKey, issuerID: "issuer-1", keyID: "KEY123", bundleID: "com.example")
        }

        func issuer(now: @escaping @Sendable () -> Instant = { TestChains.now }) throws -> ServerAPITokenIssuer {
            try ServerAPITokenIssuer(
                issuerID: "issuer-1",
                keyID: "KEY123",
                bundleID: "com.example",
                privateKeyPEM: key.pemRepresentation,
                now: now
            )
        }

        func client(_ http: HTTPClient, baseURL: String, environment: StoreEnvironment = .sandbox) throws
            -> AppStoreServerAPIClient
        {
            AppStoreServerAPIClient(
                httpClient: http,
                // A production-sized deadline: these tests are about answers, not speed, and the whole suite
                // runs in parallel on two shared cores (the timeout itself is tested below with 300 ms).
                configuration: .init(environment: environment, baseURL: baseURL, timeout: .seconds(30)),
                tokenIssuer: try issuer(),
                verifier: try TestChains.verifier(roots: [chain.trustedRoot], environment: environment),
                now: { TestChains.now }
            )
        }

        func json(_ object: [String: Any]) -> StubResponse {
            StubResponse(body: try! JSONSerialization.data(withJSONObject: object))
        }
    }

    /// Serves `handler` behind the token check: any request with a bad token gets 401.
    static func run<Result>(
        _ fixture: Fixture,
        handler: @escaping StubHTTPServer.Handler,
        _ body: (AppStoreServerAPIClient, StubHTTPServer) async throws -> Result
    ) async throws -> Result {
        let checker = fixture.checker
        return try await StubHTTPServer.with(handler: { request in
            if let problem = checker.problem(with: request) {
                return .json(#"{"errorCode":4010000,"errorMessage":"\#(problem)"}"#, status: 401)
            }
            return await handler(request)
        }) { server in
            try await withTestHTTPClient { http in
                try await body(try fixture.client(http, baseURL: server.baseURL), server)
            }
        }
    }

    @Test func transactionHistoryPagesWithRevisionUntilHasMoreIsFalse() async throws {
        let fixture = try Fixture()
        let t1 = try fixture.signer.sign(TestChains.transaction(id: "1"))
        let t2 = try fixture.signer.sign(TestChains.transaction(id: "2"))
        let t3 = try fixture.signer.sign(TestChains.transaction(id: "3"))
        let transactions = try await Self.run(
            fixture,
            handler: { request in
                switch request.query["revision"]?.first {
                case nil:
                    return fixture.json([
                        "revision": "r1", "hasMore": true, "signedTransactions": [t1, t2], "environment": "Sandbox",
                    ])
                case "r1": return fixture.json(["revision": "r2", "hasMore": false, "signedTransactions": [t3]])
                default: return .json(#"{"errorCode":4000030,"errorMessage":"Invalid revision."}"#, status: 400)
                }
            }
        ) { client, server in
            let all = try await client.allTransactionHistory(
                transactionID: "2000000000000000",
                request: .init(productIDs: ["a", "b"], sort: .descending, revoked: false)
            )
            let requests = server.requests
            #expect(requests.count == 2)
            #expect(requests.allSatisfy { $0.path == "/inApps/v2/history/2000000000000000" && $0.method == "GET" })
            #expect(requests[0].query["productId"] == ["a", "b"])
            #expect(requests[0].query["sort"] == ["DESCENDING"])
            #expect(requests[0].query["revoked"] == ["false"])
            #expect(requests[1].query["revision"] == ["r1"])
            return all
        }
        #expect(transactions.map(\.transactionID) == ["1", "2", "3"])
    }

    @Test func tokenIsReusedAcrossRequestsAndAcceptedByTheStub() async throws {
        let fixture = try Fixture()
        let info = try fixture.signer.sign(TestChains.transaction(id: "9"))
        try await Self.run(fixture, handler: { _ in fixture.json(["signedTransactionInfo": info]) }) { client, server in
            let first = try await client.transactionInfo(transactionID: "9")
            let second = try await client.transactionInfo(transactionID: "9")
            #expect(first.transactionID == "9")
            #expect(second.transactionID == "9")
            let tokens = server.requests.compactMap { $0.header("Authorization") }
            #expect(tokens.count == 2)
            #expect(tokens[0] == tokens[1])
            #expect(server.requests[0].path == "/inApps/v1/transactions/9")
        }
    }

    @Test func tokenFromAnotherKeyIsUnauthorized() async throws {
        let fixture = try Fixture()
        var impostor = fixture
        impostor.key = P256.Signing.PrivateKey()
        let checker = fixture.checker
        try await StubHTTPServer.with(handler: { request in
            checker.problem(with: request) == nil ? .json("{}") : .json(#"{"errorCode":4010000}"#, status: 401)
        }) { server in
            try await withTestHTTPClient { http in
                let client = try impostor.client(http, baseURL: server.baseURL)
                await #expect(throws: AppStoreServerAPIError(.unauthorized, apiErrorCode: 4_010_000, httpStatus: 401)) {
                    try await client.transactionInfo(transactionID: "1")
                }
            }
        }
    }

    @Test func subscriptionStatusesAreVerifiedItemByItem() async throws {
        let fixture = try Fixture()
        let transaction = try fixture.signer.sign(TestChains.transaction())
        let renewal = try fixture.signer.sign(TestChains.renewal())
        let statuses = try await Self.run(
            fixture,
            handler: { _ in
                fixture.json([
                    "environment": "Sandbox", "bundleId": "com.example", "appAppleId": 1234,
                    "data": [
                        [
                            "subscriptionGroupIdentifier": "group",
                            "lastTransactions": [
                                [
                                    "status": 1, "originalTransactionId": "2000000000000000",
                                    "signedTransactionInfo": transaction, "signedRenewalInfo": renewal,
                                ]
                            ],
                        ]
                    ],
                ])
            }
        ) { client, server in
            let result = try await client.allSubscriptionStatuses(transactionID: "2000000000000000", statuses: [1, 4])
            #expect(server.requests[0].query["status"] == ["1", "4"])
            #expect(server.requests[0].path == "/inApps/v1/subscriptions/2000000000000000")
            return result
        }
        let chainStatus = try #require(statuses.groups.first?.lastTransactions.first)
        #expect(chainStatus.status == .active)
        #expect(chainStatus.transaction?.transactionID == "2000000000000001")
        #expect(chainStatus.renewalInfo?.autoRenewStatus == .on)
    }

    @Test func unverifiableItemFailsTheCall() async throws {
        let fixture = try Fixture()
        let foreign = try JWSSigner(chain: TestChains.chain()).sign(TestChains.transaction())
        try await Self.run(fixture, handler: { _ in fixture.json(["status": 0, "signedTransactions": [foreign]]) }) {
            client, _ in
            do {
                _ = try await client.lookUpOrder(orderID: "MQ5Y7XJZ9P")
                Issue.record("expected a verification failure")
            } catch let error as AppStoreServerAPIError {
                #expect(error.code == .verificationFailed)
                #expect(error.verificationError?.code == .invalidCertificateChain)
            }
        }
    }

    @Test func refundAndOrderAndNotificationHistoryEndpoints() async throws {
        let fixture = try Fixture()
        let transaction = try fixture.signer.sign(TestChains.transaction())
        let notification = try fixture.signer.sign(
            ResponseBodyV2DecodedPayload(
                rawNotificationType: "REFUND", notificationUUID: "n-1",
                data: NotificationData(rawEnvironment: "Sandbox", appAppleID: 1234, bundleID: "com.example"),
                version: "2.0", signedDate: 1_700_000_000_000
            )
        )
        try await Self.run(
            fixture,
            handler: { request in
                switch request.path {
                case "/inApps/v2/refund/lookup/77":
                    return fixture.json(["signedTransactions": [transaction], "revision": "rv", "hasMore": false])
                case "/inApps/v1/lookup/ORDER%2F1":
                    return fixture.json(["status": 0, "signedTransactions": [transaction]])
                case "/inApps/v1/notifications/history":
                    return fixture.json([
                        "paginationToken": "next", "hasMore": true,
                        "notificationHistory": [
                            [
                                "signedPayload": notification,
                                "sendAttempts": [["attemptDate": 1, "sendAttemptResult": "SUCCESS"]],
                            ]
                        ],
                    ])
                default:
                    return .json(#"{"errorCode":4040001}"#, status: 404)
                }
            }
        ) { client, server in
            #expect(try await client.allRefundHistory(transactionID: "77").count == 1)
            #expect(try await client.lookUpOrder(orderID: "ORDER/1").status == 0)
            let page = try await client.notificationHistory(
                .init(startDate: 1, endDate: 2, notificationType: "REFUND"),
                paginationToken: "abc"
            )
            #expect(page.items.first?.notification.notificationType == .refund)
            #expect(page.items.first?.sendAttempts.first?.sendAttemptResult == "SUCCESS")
            #expect(page.hasMore)
            let historyRequest = try #require(server.requests.last)
            #expect(historyRequest.method == "POST")
            #expect(historyRequest.query["paginationToken"] == ["abc"])
            let body = try #require(try JSONSerialization.jsonObject(with: historyRequest.body) as? [String: Any])
            #expect(body["notificationType"] as? String == "REFUND")
            #expect(body["startDate"] as? Int == 1)
        }
    }

    @Test func transactionIDNotFoundMapsAndFallsBackToTheOtherEnvironment() async throws {
        let fixture = try Fixture()
        let info = try fixture.signer.sign(TestChains.transaction(id: "42"))
        let checker = fixture.checker
        try await StubHTTPServer.with(handler: { request in
            guard checker.problem(with: request) == nil else { return .json("{}", status: 401) }
            if request.path.hasPrefix("/production") {
                return .json(#"{"errorCode":4040010,"errorMessage":"Transaction id not found."}"#, status: 404)
            }
            return fixture.json(["signedTransactionInfo": info])
        }) { server in
            try await withTestHTTPClient { http in
                let production = AppStoreServerAPIClient(
                    httpClient: http,
                    configuration: .init(environment: .production, baseURL: "\(server.baseURL)/production"),
                    tokenIssuer: try fixture.issuer(),
                    verifier: try TestChains.verifier(roots: [fixture.chain.trustedRoot], environment: .production)
                )
                let sandbox = try fixture.client(http, baseURL: "\(server.baseURL)/sandbox")
                await #expect(
                    throws: AppStoreServerAPIError(.transactionIDNotFound, apiErrorCode: 4_040_010, httpStatus: 404)
                ) {
                    try await production.transactionInfo(transactionID: "42")
                }
                let environments = AppStoreServerAPIEnvironments(production: production, sandbox: sandbox)
                let found = try await environments.withEnvironmentFallback { client throws(AppStoreServerAPIError) in
                    try await client.transactionInfo(transactionID: "42")
                }
                #expect(found.transactionID == "42")
                #expect(
                    server.requests.map(\.path).suffix(2) == [
                        "/production/inApps/v1/transactions/42", "/sandbox/inApps/v1/transactions/42",
                    ])
            }
        }
    }

    @Test func rateLimitIsRetryableWithRetryAfter() async throws {
        let fixture = try Fixture()
        try await Self.run(
            fixture,
            handler: { _ in
                StubResponse(
                    status: 429,
                    headers: [("Content-Type", "application/json"), ("Retry-After", "1700000060000")],
                    body: Data(#"{"errorCode":4290000,"errorMessage":"Rate limit exceeded."}"#.utf8)
                )
            }
        ) { client, _ in
            do {
                _ = try await client.transactionInfo(transactionID: "1")
                Issue.record("expected rate limiting")
            } catch let error as AppStoreServerAPIError {
                #expect(error.code == .rateLimited)
                #expect(error.isRetryable)
                #expect(error.apiErrorCode == 4_290_000)
                #expect(error.retryAfter == Instant(millisecondsSince1970: 1_700_000_060_000))
            }
        }
    }

    @Test(arguments: [
        (500, #"{"errorCode":5000000}"#), (500, #"{"errorCode":5000001}"#), (503, "<html>down</html>"), (502, ""),
    ])
    func serverErrorsAreRetryable(status: Int, body: String) async throws {
        let fixture = try Fixture()
        try await Self.run(fixture, handler: { _ in .json(body, status: status) }) { client, _ in
            do {
                _ = try await client.transactionInfo(transactionID: "1")
                Issue.record("expected a server error")
            } catch let error as AppStoreServerAPIError {
                #expect(error.code == .serverError)
                #expect(error.isRetryable)
            }
        }
    }

    @Test func slowAnswerTimesOutAndIsRetryable() async throws {
        let fixture = try Fixture()
        try await StubHTTPServer.with(handler: { _ in
            var response = StubResponse.json("{}")
            response.delay = .seconds(5)
            return response
        }) { server in
            try await withTestHTTPClient { http in
                let client = AppStoreServerAPIClient(
                    httpClient: http,
                    configuration: .init(environment: .sandbox, baseURL: server.baseURL, timeout: .milliseconds(300)),
                    tokenIssuer: try fixture.issuer(),
                    verifier: try TestChains.verifier(roots: [fixture.chain.trustedRoot])
                )
                do {
                    _ = try await client.transactionInfo(transactionID: "1")
                    Issue.record("expected a timeout")
                } catch let error as AppStoreServerAPIError {
                    #expect(error.code == .timeout)
                    #expect(error.isRetryable)
                }
            }
        }
    }

    @Test func otherAPIErrorsAreFinalAndKeepTheirCode() async throws {
        let fixture = try Fixture()
        _ = try await Self.run(
            fixture,
            handler: { _ in .json(#"{"errorCode":4000006,"errorMessage":"Invalid transaction id."}"#, status: 400) }
        ) { client, _ in
            await #expect(throws: AppStoreServerAPIError(.apiError, apiErrorCode: 4_000_006, httpStatus: 400)) {
                try await client.transactionInfo(transactionID: "x")
            }
        }
    }

    @Test func successWithNonJSONBodyIsMalformed() async throws {
        let fixture = try Fixture()
        _ = try await Self.run(fixture, handler: { _ in StubResponse(status: 200, body: Data("<html/>".utf8)) }) {
            client, _ in
            await #expect(throws: AppStoreServerAPIError(.malformedResponse, httpStatus: 200)) {
                try await client.transactionInfo(transactionID: "x")
            }
        }
    }

    @Test func tokenIsRenewedNearExpiryAndHasShortLifetime() throws {
        let fixture = try Fixture()
        let clock = TestClock(1_700_000_000_000)
        let issuer = try fixture.issuer(now: clock.now)
        let first = try issuer.token()
        clock.advance(milliseconds: 10 * 60 * 1000)
        #expect(try issuer.token() == first)
        clock.advance(milliseconds: 6 * 60 * 1000)  // 16 of 20 minutes gone: under the 5-minute margin
        let second = try issuer.token()
        #expect(second != first)
        let claims = try JSONDecoder().decode(
            ServerAPITokenChecker.Claims.self,
            from: Base64URL.decode(second.split(separator: ".")[1])!
        )
        #expect(claims.exp - claims.iat == 20 * 60)
        #expect(claims.iat == 1_700_000_960)
    }

    @Test func invalidKeyOrLifetimeIsAConfigurationError() {
        #expect(throws: AppStoreServerAPIError(.invalidConfiguration)) {
            try ServerAPITokenIssuer(issuerID: "i", keyID: "k", bundleID: "b", privateKeyPEM: "not a key")
        }
        #expect(throws: AppStoreServerAPIError(.invalidConfiguration)) {
            try ServerAPITokenIssuer(
                issuerID: "i", keyID: "k", bundleID: "b",
                privateKeyPEM: P256.Signing.PrivateKey().pemRepresentation, lifetime: .seconds(2 * 60 * 60)
            )
        }
    }
}
