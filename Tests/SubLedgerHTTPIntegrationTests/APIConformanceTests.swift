import Foundation
import HTTPTypes
import Hummingbird
import HummingbirdTesting
import Synchronization
import Testing

@testable import SubLedgerHTTP

/// The service answers as openapi.yaml and docs/reference/errors.md say, where a contract tester found it did not:
/// percent-encoded path parameters, 405 with `Allow`, 408 for a request that does not arrive, values the document
/// forbids, and authentication before every other check.
@Suite struct APIConformanceTests {
    typealias H = ServiceHarness

    static func get(_ path: String, key: String?, extra: String = "") -> String {
        "GET \(path) HTTP/1.1\r\nHost: localhost\r\n" + (key.map { "Authorization: Bearer \($0)\r\n" } ?? "") + extra
            + "\r\n"
    }

    static func errorCode(_ response: RawHTTPResponse) -> String? {
        let json = (try? JSONSerialization.jsonObject(with: Data(response.body))) as? [String: Any]
        return json?.errorCode
    }

    static func exchange(_ port: Int, _ request: String) async throws -> RawHTTPResponse {
        let outcome = await RawHTTPConnection.exchange(port: port, request: request, timeout: 30)
        return try #require(outcome.response, "\(request.prefix(80)): \(outcome.summary)")
    }

    // MARK: - percent-encoded path parameters

    /// `bob%40example.com` is `bob@example.com`, and `al%69ce` is `alice`: the same answer as the plain id, from
    /// the router and from the event loop's entitlement reads alike.
    @Test(arguments: [true, false])
    func aPercentEncodedAccountIDNamesTheAccount(onEventLoops: Bool) async throws {
        try await H.run(entitlementReadsOnEventLoops: onEventLoops) { harness, client in
            let signed = try harness.signedTransaction(id: "5100", purchasedOnDay: 0, expiresOnDay: 30)
            let submitted = try await client.call(
                .post, "/v1/transactions", key: harness.keyOne,
                json: ["account_id": "bob@example.com", "signed_transaction": signed])
            #expect(submitted.status == .ok)
            let port = try #require(client.port)
            let plain = try await Self.exchange(
                port, Self.get("/v1/accounts/bob@example.com/entitlements", key: harness.keyOne))
            #expect(plain.status == 200)
            #expect(plain.text.contains("\"account_id\":\"bob@example.com\""))
            #expect(plain.text.contains("\"pro\""))
            for encoded in ["bob%40example.com", "b%6Fb%40example.com", "%62ob%40example%2Ecom"] {
                let answer = try await Self.exchange(
                    port, Self.get("/v1/accounts/\(encoded)/entitlements", key: harness.keyOne))
                #expect(answer.status == 200, "\(encoded)")
                #expect(answer.text == plain.text, "\(encoded)")
            }
            let alice = try await Self.exchange(port, Self.get("/v1/accounts/alice/entitlements", key: harness.keyOne))
            let encodedAlice = try await Self.exchange(
                port, Self.get("/v1/accounts/al%69ce/entitlements", key: harness.keyOne))
            #expect(alice.status == 200)
            #expect(encodedAlice.status == 200)
            #expect(encodedAlice.text == alice.text)
            // The other routes of an account decode it the same way.
            let consent = try await client.call(
                .post, "/v1/accounts/bob%40example.com/consent", key: harness.keyOne,
                raw: ByteBuffer(string: #"{"consented": true}"#))
            #expect(consent.status == .created)
            #expect(consent.json["account_id"] as? String == "bob@example.com")
            let transactions = try await client.call(
                .get, "/v1/accounts/bob%40example.com/transactions", key: harness.keyOne)
            #expect(transactions.status == .ok)
            #expect(transactions.json["account_id"] as? String == "bob@example.com")
        }
    }

    /// A `%` without two hex digits, an encoded NUL, escapes that are not UTF-8 and an encoded `/` are refused with
    /// the parameter's own 400 (`invalid_account_id`) saying which, by the router and with the event loop's reads on
    /// alike; without a key
    /// the answer is 401 first.
    @Test(arguments: [true, false])
    func aPathParameterThatCannotBeDecodedIsRefused(onEventLoops: Bool) async throws {
        try await H.run(entitlementReadsOnEventLoops: onEventLoops) { harness, client in
            let port = try #require(client.port)
            let cases: [(segment: String, says: String)] = [
                ("a%4", "two hex digits"), ("a%zz", "two hex digits"), ("%", "two hex digits"),
                ("a%00b", "NUL"), ("a%FFb", "UTF-8"), ("a%C3", "UTF-8"), ("a%2Fb", "%2F"), ("a%2fb", "%2F"),
            ]
            for (segment, says) in cases {
                let answer = try await Self.exchange(
                    port, Self.get("/v1/accounts/\(segment)/entitlements", key: harness.keyOne))
                #expect(answer.status == 400, "\(segment)")
                #expect(Self.errorCode(answer) == "invalid_account_id", "\(segment)")
                #expect(answer.text.contains(says), "\(segment): \(answer.text)")
                let anonymous = try await Self.exchange(
                    port, Self.get("/v1/accounts/\(segment)/entitlements", key: nil))
                #expect(anonymous.status == 401, "\(segment)")
            }
        }
    }

    // MARK: - 405

    /// A route asked with a method it does not take is answered 405 `method_not_allowed` with `Allow`; a path no
    /// route has stays 404.
    @Test func aKnownRouteWithAnotherMethodIsAnswered405WithAllow() async throws {
        try await H.run { harness, client in
            let admin = try await harness.keys.create(bundleID: nil, name: "ops").secret
            let cases: [(HTTPRequest.Method, String, String, allow: String)] = [
                (.post, "/v1/accounts/alice/entitlements", harness.keyOne, "GET"),
                (.delete, "/v1/accounts/alice/transactions", harness.keyOne, "GET"),
                (.get, "/v1/orders", harness.keyOne, "POST"),
                (.put, "/v1/accounts/alice/consent", harness.keyOne, "POST"),
                (.put, "/v1/admin/webhooks/0b5c6a0e-8f0b-4a57-9f6c-2d1c1c6f1f00", admin, "DELETE, GET"),
                (.delete, "/v1/admin/lookup/order/MK5TTTVWJH", admin, "GET, POST"),
                (.post, "/health/live", harness.keyOne, "GET"),
            ]
            for (method, path, key, allow) in cases {
                let answer = try await client.call(method, path, key: key)
                #expect(answer.status == .methodNotAllowed, "\(method) \(path)")
                #expect(answer.json.errorCode == "method_not_allowed", "\(method) \(path)")
                #expect(answer.headers[.allow] == allow, "\(method) \(path)")
            }
            let unknown = try await client.call(.get, "/v1/no-such-route", key: harness.keyOne)
            #expect(unknown.status == .notFound)
            #expect(unknown.json.errorCode == "not_found")
            #expect(unknown.headers[.allow] == nil)
        }
    }

    /// QUERY (the draft safe method with a body) on a known path is 405 with `Allow` too, not a 404 saying the
    /// path does not exist; on an unknown path it stays 404.
    @Test func queryOnAKnownRouteIsAnswered405WithAllow() async throws {
        try await H.run { harness, client in
            let port = try #require(client.port)
            let cases: [(path: String, allow: String)] = [
                ("/health/live", "GET"), ("/v1/orders", "POST"), ("/v1/accounts/alice/entitlements", "GET"),
                ("/openapi.yaml", "GET"),
            ]
            for (path, allow) in cases {
                let answer = try await Self.exchange(
                    port, "QUERY \(path) HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(harness.keyOne)\r\n\r\n"
                )
                #expect(answer.status == 405, "QUERY \(path)")
                #expect(Self.errorCode(answer) == "method_not_allowed", "QUERY \(path)")
                #expect(answer.header("Allow") == allow, "QUERY \(path)")
            }
            let unknown = try await Self.exchange(
                port,
                "QUERY /v1/no-such-route HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(harness.keyOne)\r\n\r\n"
            )
            #expect(unknown.status == 404)
        }
    }

    // MARK: - 408

    /// A request whose headers, or whose body, stop arriving is answered 408 `request_timeout` with
    /// `Connection: close`, `Date` and `Server` once the request timeout (here 1 s) has passed; the answer, not its time, is asserted.
    @Test func aRequestThatDoesNotArriveIsAnswered408() async throws {
        try await H.run(requestTimeout: .seconds(1)) { harness, client in
            let port = try #require(client.port)
            let partialHeaders = "GET /v1/accounts/alice/entitlements HTTP/1.1\r\nHost: localhost\r\nAccept: applic"
            let partialBody =
                "POST /v1/orders HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer \(harness.keyOne)\r\n"
                + "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"account_id\": \"al"
            for request in [partialHeaders, partialBody] {
                let answer = try await Self.exchange(port, request)
                #expect(answer.status == 408, "\(request.prefix(30))")
                #expect(answer.header("Connection")?.lowercased() == "close")
                #expect(Self.errorCode(answer) == "request_timeout")
                // Ended as every answer is: `Date` (RFC 9110's IMF-fixdate) and then `Server`.
                #expect(answer.headers.suffix(2).map(\.name) == ["Date", "Server"], "\(answer.headers)")
                #expect(answer.header("Server") == "SubLedger")
                let date = try #require(answer.header("Date"))
                #expect(date.hasSuffix(" GMT") && date.count == "Thu, 01 Jan 1970 00:00:00 GMT".count, "\(date)")
            }
            // A complete request on the same short timeout is answered as usual.
            let complete = try await Self.exchange(
                port, Self.get("/v1/accounts/alice/entitlements", key: harness.keyOne))
            #expect(complete.status == 200)
            #expect(complete.headers.suffix(2).map(\.name) == ["Date", "Server"], "\(complete.headers)")
        }
    }

    /// A request that stops arriving on a connection whose earlier request was answered is answered 408 too: the
    /// check the connection keeps scheduled, made for the earlier request, waits on for the later one's time.
    @Test func aRequestThatDoesNotArriveAfterAnAnsweredOneIsAnswered408() async throws {
        try await H.run(requestTimeout: .seconds(1)) { _, client in
            let port = try #require(client.port)
            let received = await RawHTTPConnection.exchangeUntilClosed(
                port: port, request: Array("GET /health/live HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8),
                afterAnswer: Array("GET /health/live HTTP/1.1\r\nHost: local".utf8), timeout: 30)
            let text = String(decoding: received, as: UTF8.self)
            // Each answer's status line (the second follows the first's body directly).
            let statuses = text.components(separatedBy: "HTTP/1.1 ").dropFirst().map {
                $0.prefix(while: { $0 != "\r\n" })
            }
            #expect(statuses == ["200 OK", "408 Request Timeout"], "\(text)")
            #expect(text.contains("request_timeout"))
        }
    }

    // MARK: - values openapi.yaml forbids

    /// `at` is at most 64 characters (openapi.yaml): 65 are refused with 400 `invalid_time`, as is the same time
    /// in 64 accepted.
    @Test func aTimeLongerThanSixtyFourCharactersIsRefused() async throws {
        try await H.run { harness, client in
            let milliseconds = "1735689600000"
            let longest = String(repeating: "0", count: 64 - milliseconds.count) + milliseconds
            let tooLong = "0" + longest
            let accepted = try await client.call(
                .get, "/v1/accounts/alice/entitlements?at=\(longest)", key: harness.keyOne)
            #expect(accepted.status == .ok)
            let refused = try await client.call(
                .get, "/v1/accounts/alice/entitlements?at=\(tooLong)", key: harness.keyOne)
            #expect(refused.status == .badRequest)
            #expect(refused.json.errorCode == "invalid_time")
            let consent = try await client.call(
                .post, "/v1/accounts/alice/consent", key: harness.keyOne,
                raw: ByteBuffer(string: #"{"consented": true, "at": "\#(tooLong)"}"#))
            #expect(consent.status == .badRequest)
            #expect(consent.json.errorCode == "invalid_time")
        }
    }

    /// No field of the consent and usage bodies may be `null` (openapi.yaml): each is refused with 400
    /// `malformed_json` naming the field, where it was taken as absent.
    @Test func nullIsRefusedInConsentAndUsageBodies() async throws {
        try await H.run { harness, client in
            let bodies: [(path: String, body: String, field: String)] = [
                ("consent", #"{"consented": true, "at": null}"#, "at"),
                ("consent", #"{"consented": null}"#, "consented"),
                (
                    "usage", #"{"transaction_id": "5100", "play_time_minutes": 3, "delivery_status": null}"#,
                    "delivery_status"
                ),
                (
                    "usage", #"{"transaction_id": "5100", "play_time_minutes": 3, "sample_content_provided": null}"#,
                    "sample_content_provided"
                ),
                (
                    "usage", #"{"transaction_id": "5100", "consumption_percentage": null, "play_time_minutes": 3}"#,
                    "consumption_percentage"
                ),
            ]
            for (path, body, field) in bodies {
                let answer = try await client.call(
                    .post, "/v1/accounts/alice/\(path)", key: harness.keyOne, raw: ByteBuffer(string: body))
                #expect(answer.status == .badRequest, "\(body)")
                #expect(answer.json.errorCode == "malformed_json", "\(body)")
                #expect(answer.json.errorMessage?.contains("'\(field)'") == true, "\(body)")
            }
            // Without the nulls, the same bodies are recorded.
            let consent = try await client.call(
                .post, "/v1/accounts/alice/consent", key: harness.keyOne,
                raw: ByteBuffer(string: #"{"consented": true}"#))
            #expect(consent.status == .created)
            let usage = try await client.call(
                .post, "/v1/accounts/alice/usage", key: harness.keyOne,
                raw: ByteBuffer(string: #"{"transaction_id": "5100", "play_time_minutes": 3}"#))
            #expect(usage.status == .created)
        }
    }

    // MARK: - authentication first

    /// A request without a valid key is answered 401 whatever else is wrong with it: a consistency token that is not
    /// one, a body above the limit, a path parameter that cannot be decoded.
    @Test func authenticationIsCheckedBeforeAnythingElse() async throws {
        try await H.run { harness, client in
            let port = try #require(client.port)
            let badToken = "SubLedger-Consistency-Token: nonsense\r\n"
            for request in [
                Self.get("/v1/accounts/alice/entitlements", key: nil, extra: badToken),
                Self.get("/v1/accounts/alice/entitlements", key: "sl_app_unknown", extra: badToken),
                Self.get("/v1/admin/reports/summary", key: nil, extra: badToken),
                Self.get("/admin", key: nil, extra: badToken),
                "POST /v1/orders HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n"
                    + "Content-Length: 2000000\r\nConnection: close\r\n\r\n{",
                Self.get("/v1/accounts/a%zz/subscriptions", key: nil),
            ] {
                let answer = try await Self.exchange(port, request)
                #expect(answer.status == 401, "\(request.prefix(60))")
                #expect(answer.header("WWW-Authenticate") != nil)
            }
            // With a key, the same token is refused as before.
            let refused = try await Self.exchange(
                port, Self.get("/v1/accounts/alice/entitlements", key: harness.keyOne, extra: badToken))
            #expect(refused.status == 400)
            #expect(Self.errorCode(refused) == "invalid_consistency_token")
        }
    }
}
