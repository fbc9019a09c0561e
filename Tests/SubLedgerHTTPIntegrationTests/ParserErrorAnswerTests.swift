import Foundation
import Testing

@testable import SubLedgerHTTP
@testable import SubLedgerUseCases

/// Requests the HTTP/1.1 parser refuses, sent as raw bytes over a loopback socket: each is answered in the error
/// shape with a code, and the connection is closed (`Connection: close`), since nothing after a framing error
/// can be trusted to start a request.
@Suite struct ParserErrorAnswerTests {
    typealias H = ServiceHarness

    struct Case: Sendable, CustomTestStringConvertible {
        var name: String
        var request: [UInt8]
        var status: Int
        var code: String
        var testDescription: String { name }
    }

    static func request(_ head: String, path: [UInt8] = Array("/health/live".utf8)) -> [UInt8] {
        Array("GET ".utf8) + path + Array(" HTTP/1.1\r\nHost: localhost\r\n\(head)\r\n".utf8)
    }

    static let cases: [Case] = [
        Case(
            name: "Content-Length with Transfer-Encoding: chunked",
            request: Array(
                "POST /v1/notifications/appstore HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\n"
                    .utf8) + Array("Transfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n".utf8),
            status: 400, code: "malformed_request"),
        Case(
            name: "negative Content-Length",
            request: Array(
                "POST /v1/notifications/appstore HTTP/1.1\r\nHost: localhost\r\nContent-Length: -5\r\n\r\nhello".utf8),
            status: 400, code: "malformed_request"),
        Case(
            name: "two different Content-Lengths",
            request: Array(
                "POST /v1/notifications/appstore HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!"
                    .utf8),
            status: 400, code: "malformed_request"),
        Case(
            name: "obs-folded header", request: request("X-Folded: one\r\n  two\r\n"), status: 400,
            code: "malformed_request"),
        Case(
            name: "raw NUL in the path", request: request("", path: Array("/health/\u{0}live".utf8)), status: 400,
            code: "malformed_request"),
        Case(
            name: "raw non-ASCII in the path", request: request("", path: Array("/health/livé".utf8)), status: 400,
            code: "malformed_request"),
        Case(
            name: "invalid UTF-8 in the path", request: request("", path: Array("/health/".utf8) + [0xFF, 0xFE]),
            status: 400, code: "malformed_request"),
        Case(
            name: "a 100 KB path",
            request: request("", path: Array(("/" + String(repeating: "a", count: 100_000)).utf8)),
            status: 414, code: "uri_too_long"),
        Case(
            name: "a 100 KB header", request: request("X-Large: \(String(repeating: "b", count: 100_000))\r\n"),
            status: 431, code: "headers_too_large"),
    ]

    @Test(arguments: cases)
    func aRequestTheParserRefusesIsAnsweredInTheErrorShape(_ refused: Case) async throws {
        try await H.run { _, client in
            let port = try #require(client.port)
            let outcome = await RawHTTPConnection.exchange(port: port, request: refused.request, timeout: 20)
            let answer = try #require(outcome.response, "\(outcome.summary)")
            #expect(answer.status == refused.status, "\(answer.text)")
            let body = try JSONDecoder().decode(RefusalBody.self, from: Data(answer.body))
            #expect(body.error.code == refused.code)
            #expect(!body.error.message.isEmpty)
            #expect(answer.header("Content-Type")?.hasPrefix("application/json") == true)
            #expect(answer.header("Connection")?.lowercased() == "close")
            // Ended as every answer of the service is.
            #expect(answer.header("Server") == "SubLedger")
            #expect(answer.header("Date")?.hasSuffix(" GMT") == true, "\(answer.text)")

            // The server still serves the next connection.
            let next = await RawHTTPConnection.exchange(
                port: port, request: "GET /health/live HTTP/1.1\r\nHost: localhost\r\n\r\n", timeout: 20)
            #expect(next.response?.status == 200, "\(next.summary)")
        }
    }

    /// A refused request pipelined behind a good one is answered after the good one's answer, never inside it.
    @Test func aRefusedRequestBehindAGoodOneIsAnsweredAfterIt() async throws {
        try await H.run { _, client in
            let port = try #require(client.port)
            let good = Array("GET /health/live HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8)
            let refused = Self.request("X-Folded: one\r\n  two\r\n")
            let received = await RawHTTPConnection.exchangeUntilClosed(port: port, request: good + refused, timeout: 20)
            let text = String(decoding: received, as: UTF8.self)
            let answers = text.components(separatedBy: "HTTP/1.1 ").dropFirst()
            #expect(answers.count == 2, "\(text)")
            #expect(answers.first?.hasPrefix("200 ") == true, "\(text)")
            #expect(answers.last?.hasPrefix("400 ") == true, "\(text)")
            #expect(answers.last?.contains("\"malformed_request\"") == true, "\(text)")
        }
    }

    /// After the answer the server closes the connection: a request sent behind the refused one gets no answer.
    @Test func theConnectionIsClosedAfterTheAnswer() async throws {
        try await H.run { _, client in
            let port = try #require(client.port)
            let refused = Self.request("X-Folded: one\r\n  two\r\n")
            let behind = Array("GET /health/live HTTP/1.1\r\nHost: localhost\r\n\r\n".utf8)
            let received = await RawHTTPConnection.exchangeUntilClosed(
                port: port, request: refused + behind, timeout: 20)
            let text = String(decoding: received, as: UTF8.self)
            #expect(text.components(separatedBy: "HTTP/1.1 ").count - 1 == 1, "\(text)")
            #expect(text.hasPrefix("HTTP/1.1 400 "))
        }
    }
}

/// The error shape every refusal has, decoded as a client would.
private struct RefusalBody: Decodable {
    struct Detail: Decodable {
        var code: String
        var message: String
    }
    var error: Detail
}
