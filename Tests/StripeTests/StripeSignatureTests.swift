import Foundation
import Stripe
import SubLedgerCore
import Testing

@Suite struct StripeSignatureTests {
    let body = Data(#"{"id":"evt_1","type":"invoice.paid"}"#.utf8)
    let secret = "whsec_test_secret_one"
    let now = Instant(millisecondsSince1970: 1_764_201_600_000)
    var seconds: Int64 { now.millisecondsSince1970 / 1000 }

    @Test func aSignatureMadeWithTheSecretVerifies() throws {
        let header = StripeSignature.header(body: body, timestamp: seconds, secrets: [secret])
        try StripeSignature.verify(header: header, body: body, secrets: [secret], now: now)
    }

    /// Stripe's documented scheme, computed independently of `header(…)`: HMAC-SHA256 of "t.body", hex.
    @Test func theV1IsTheHexHMACOfTheTimestampAndBody() throws {
        let header = StripeSignature.header(body: body, timestamp: 1_700_000_000, secrets: ["whsec_abc"])
        #expect(header == "t=1700000000,v1=" + Self.knownDigest)
    }
    // printf '1700000000.{"id":"evt_1","type":"invoice.paid"}' | openssl dgst -sha256 -hmac whsec_abc
    static let knownDigest = "1bf03c42db4dc6d49c9dd21c8df352809ab3af46d32169cdc35358dfc182c09d"

    @Test func duringARollEitherSecretVerifies() throws {
        let old = "whsec_old_secret_value"
        let header = StripeSignature.header(body: body, timestamp: seconds, secrets: [secret, old])
        try StripeSignature.verify(header: header, body: body, secrets: [old], now: now)
        try StripeSignature.verify(header: header, body: body, secrets: [secret], now: now)
    }

    @Test func anotherSecretOrAChangedBodyIsRefused() {
        let header = StripeSignature.header(body: body, timestamp: seconds, secrets: [secret])
        #expect(throws: StripeSignatureError.noMatchingSignature) {
            try StripeSignature.verify(header: header, body: body, secrets: ["whsec_other_secret"], now: now)
        }
        var changed = body
        changed.append(UInt8(ascii: " "))
        #expect(throws: StripeSignatureError.noMatchingSignature) {
            try StripeSignature.verify(header: header, body: changed, secrets: [secret], now: now)
        }
    }

    @Test func aSignatureOutsideTheToleranceIsAReplay() {
        let stale = StripeSignature.header(body: body, timestamp: seconds - 301, secrets: [secret])
        #expect(throws: StripeSignatureError.outsideTolerance) {
            try StripeSignature.verify(header: stale, body: body, secrets: [secret], now: now)
        }
        let future = StripeSignature.header(body: body, timestamp: seconds + 301, secrets: [secret])
        #expect(throws: StripeSignatureError.outsideTolerance) {
            try StripeSignature.verify(header: future, body: body, secrets: [secret], now: now)
        }
        let edge = StripeSignature.header(body: body, timestamp: seconds - 300, secrets: [secret])
        #expect(throws: Never.self) {
            try StripeSignature.verify(header: edge, body: body, secrets: [secret], now: now)
        }
    }

    @Test(arguments: [
        ("", StripeSignatureError.malformedHeader),
        ("v1=00", .malformedHeader),
        ("t=abc,v1=00", .malformedHeader),
        ("t=1,t=2,v1=00", .malformedHeader),
        ("t=99999999999999999999,v1=00", .malformedHeader),
        ("t=1764201600", .noSignature),
        ("t=1764201600,v0=" + String(repeating: "a", count: 64), .noSignature),
        ("t=1764201600,v1=zz", .noSignature),
        ("t=1764201600,v1=" + String(repeating: "a", count: 62), .noSignature),
        (String(repeating: "t", count: 5000), .malformedHeader),
    ])
    func malformedHeadersAreRefused(header: String, error: StripeSignatureError) {
        #expect(throws: error) { try StripeSignature.verify(header: header, body: body, secrets: [secret], now: now) }
    }

    @Test func noHeaderIsRefused() {
        #expect(throws: StripeSignatureError.missingHeader) {
            try StripeSignature.verify(header: nil, body: body, secrets: [secret], now: now)
        }
    }

    @Test func anEmptySecretNeverVerifies() {
        let header = StripeSignature.header(body: body, timestamp: seconds, secrets: [""])
        #expect(throws: StripeSignatureError.noMatchingSignature) {
            try StripeSignature.verify(header: header, body: body, secrets: [""], now: now)
        }
    }
}
