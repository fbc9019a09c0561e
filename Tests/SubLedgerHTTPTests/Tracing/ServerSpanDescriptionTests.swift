import Testing
import Tracing

@testable import SubLedgerHTTP

/// A request's server span as the OpenTelemetry HTTP semantic conventions describe it (docs/guides/operate.md,
/// "Traces"): `{method} {http.route}`, the scheme and the server the client named, `error.type` on a 5xx.
@Suite struct ServerSpanDescriptionTests {
    static func strings(_ attributes: [(String, SpanAttribute)]) -> [String: String] {
        Dictionary(attributes.map { ($0.0, attributeText($0.1)) }, uniquingKeysWith: { _, last in last })
    }

    @Test func theSpanIsNamedForTheMethodAndTheRoute() {
        #expect(ServerSpanDescription.name(method: "POST", route: "/v1/receipts") == "POST /v1/receipts")
        #expect(
            ServerSpanDescription.name(method: "GET", route: "/v1/accounts/{account_id}/entitlements")
                == "GET /v1/accounts/{account_id}/entitlements")
        // No route matched: the method alone, never the path (which is the client's to choose).
        #expect(ServerSpanDescription.name(method: "GET", route: "NotFound") == "GET")
        #expect(ServerSpanDescription.name(method: "GET", route: nil) == "GET")
        // A method the conventions do not know is `_OTHER`, and the span is `HTTP`.
        #expect(ServerSpanDescription.method("BREW") == "_OTHER")
        #expect(ServerSpanDescription.name(method: "_OTHER", route: "/v1/receipts") == "HTTP /v1/receipts")
    }

    @Test func theRequestSaysItsSchemeAndTheServerTheClientNamed() {
        let attributes = Self.strings(
            ServerSpanDescription.requestAttributes(
                method: "POST", path: "/v1/receipts", query: nil, authority: "127.0.0.1:8080", userAgent: "curl/8"))
        #expect(attributes["http.request.method"] == "POST")
        #expect(attributes["url.scheme"] == "http")
        #expect(attributes["url.path"] == "/v1/receipts")
        #expect(attributes["server.address"] == "127.0.0.1")
        #expect(attributes["server.port"] == "8080")
        #expect(attributes["user_agent.original"] == "curl/8")
        #expect(attributes["url.query"] == nil)
        let other = Self.strings(
            ServerSpanDescription.requestAttributes(
                method: "BREW", path: "/", query: "a=1", authority: nil, userAgent: nil))
        #expect(other["http.request.method"] == "_OTHER")
        #expect(other["http.request.method_original"] == "BREW")
        #expect(other["url.query"] == "a=1")
        #expect(other["server.address"] == nil)
    }

    @Test(arguments: [
        ("example.com", "example.com", 80), ("example.com:8443", "example.com", 8443), ("[::1]:8080", "::1", 8080),
        ("[::1]", "::1", 80),
    ])
    func theHostHeaderGivesTheServersAddressAndPort(authority: String, address: String, port: Int) throws {
        let server = try #require(ServerSpanDescription.server(authority: authority))
        #expect(server.address == address)
        #expect(server.port == port)
    }

    @Test(arguments: ["", ":80", "example.com:http", "example.com:70000", "[::1", "[::1]x"])
    func aHostHeaderThatNamesNoServerGivesNone(authority: String) {
        #expect(ServerSpanDescription.server(authority: authority) == nil)
    }

    @Test func aServerErrorHasAnErrorTypeAndAClientErrorNone() {
        struct Broken: Error {}
        let answered = Self.strings(
            ServerSpanDescription.responseAttributes(route: "/v1/receipts", status: 503, error: nil))
        #expect(answered["error.type"] == "503")
        #expect(answered["http.response.status_code"] == "503")
        #expect(answered["http.route"] == "/v1/receipts")
        let thrown = Self.strings(ServerSpanDescription.responseAttributes(route: nil, status: 500, error: Broken()))
        #expect(thrown["error.type"] == "Broken")
        #expect(thrown["http.route"] == nil)
        let refused = Self.strings(
            ServerSpanDescription.responseAttributes(route: "/v1/receipts", status: 422, error: nil))
        #expect(refused["error.type"] == nil)
        #expect(ServerSpanDescription.isServerError(503))
        #expect(!ServerSpanDescription.isServerError(404))
    }
}

/// An attribute's value as text: a string itself, a number in decimal.
func attributeText(_ attribute: SpanAttribute) -> String {
    switch attribute {
    case .string(let text): text
    case .int64(let number): String(number)
    case .int32(let number): String(number)
    default: "\(attribute)"
    }
}
