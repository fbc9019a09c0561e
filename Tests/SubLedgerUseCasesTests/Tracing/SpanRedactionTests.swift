import InMemoryTracing
import Testing
import Tracing

@testable import SubLedgerUseCases

/// No span keeps a secret: Google's purchase tokens in the Developer API's paths, Apple's test notification token,
/// paging tokens in queries (docs/guides/operate.md, "Traces").
@Suite struct SpanRedactionTests {
    static let token = "ohbkdmnajfhgaokfpbbbcjal.AO-J1OxzZ5Qk2Xf7yD_example-token"
    static let base = "http://127.0.0.1:9091/androidpublisher/v3/applications/com.example.android/purchases/"

    @Test(arguments: [
        ("subscriptionsv2/tokens/\(token)", "subscriptionsv2/tokens/REDACTED"),
        ("subscriptionsv2/tokens/\(token):revoke", "subscriptionsv2/tokens/REDACTED:revoke"),
        ("subscriptions/pro/tokens/\(token):acknowledge", "subscriptions/pro/tokens/REDACTED:acknowledge"),
        ("products/coins.100/tokens/\(token):consume", "products/coins.100/tokens/REDACTED:consume"),
        ("productsv2/tokens/\(token)", "productsv2/tokens/REDACTED"),
    ])
    func googlePurchaseTokensAreRedactedInURLsAndPaths(tail: String, redacted: String) {
        #expect(SpanRedaction.redacting(Self.base + tail) == Self.base + redacted)
        let path = "/androidpublisher/v3/applications/com.example.android/purchases/"
        #expect(SpanRedaction.redacting(path + tail) == path + redacted)
    }

    @Test func tokensInTheQueryAreRedactedAndTheRestIsKept() {
        #expect(
            SpanRedaction.redacting(
                "https://api.storekit.itunes.apple.com/inApps/v1/notifications/history?paginationToken=abc")
                == "https://api.storekit.itunes.apple.com/inApps/v1/notifications/history?paginationToken=REDACTED")
        #expect(SpanRedaction.redacting("startTime=1&token=next-page&type=1") == "startTime=1&token=REDACTED&type=1")
        #expect(
            SpanRedaction.redacting("https://example.com/inApps/v1/notifications/test/5d1a-test-token")
                == "https://example.com/inApps/v1/notifications/test/REDACTED")
    }

    @Test(arguments: [
        "https://api.storekit.itunes.apple.com/inApps/v1/subscriptions/2000000123456789",
        "/inApps/v2/history/2000000123456789",
        "https://api.stripe.com/v1/subscriptions/sub_1PgafmB7WZ01zgkW",
        "/verifyReceipt",
        "/v1/notifications/test",
        "https://oauth2.googleapis.com/token",
        "POST",
    ])
    func ordinaryIdsAndURLsAreKept(text: String) {
        #expect(SpanRedaction.redacting(text) == text)
    }

    /// The tracer `serve` and `poll` install redacts what a library's client span sets (AsyncHTTPClient sets the
    /// URL attribute by attribute) and renames `http.status_code`.
    @Test func theRedactingTracerKeepsNoTokenAndRenamesTheDeprecatedStatus() throws {
        let recorder = InMemoryTracer()
        let tracer = RedactingTracer(recorder)
        let url = Self.base + "subscriptionsv2/tokens/\(Self.token)"
        let span = tracer.startSpan("GET", context: .topLevel, ofKind: .client, at: DefaultTracerClock.now)
        span.attributes["url.full"] = url
        span.attributes["url.path"] = String(url.dropFirst("http://127.0.0.1:9091".count))
        span.attributes["server.port"] = 9091
        span.attributes["http.status_code"] = SpanAttribute.int64(200)
        span.addEvent(SpanEvent(name: "retry", attributes: ["url.full": .string(url)]))
        span.end()

        let finished = try #require(recorder.finishedSpans.first)
        var recorded: [String: String] = [:]
        finished.attributes.forEach { name, value in recorded[name] = attributeText(value) }
        #expect(recorded["url.full"] == Self.base + "subscriptionsv2/tokens/REDACTED")
        #expect(recorded["url.path"]?.hasSuffix("/subscriptionsv2/tokens/REDACTED") == true)
        #expect(recorded["http.response.status_code"] == "200")
        #expect(recorded["http.status_code"] == nil)
        #expect(recorded["server.port"] == "9091")
        for event in finished.events {
            event.attributes.forEach { _, value in #expect(!attributeText(value).contains(Self.token)) }
        }
        recorded.values.forEach { #expect(!$0.contains(Self.token)) }
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
