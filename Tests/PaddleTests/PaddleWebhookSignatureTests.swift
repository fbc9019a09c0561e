import Foundation
import Paddle
import SubLedgerCore
import Testing

@Suite struct PaddleWebhookSignatureTests {
    let body = Data(#"{"event_id":"evt_1","event_type":"transaction.paid"}"#.utf8)
    let secretKey = "pdl_ntfset_01hv_test_secret_one"
    let now = Instant(millisecondsSince1970: 1_764_201_600_000)
    var seconds: Int64 { now.millisecondsSince1970 / 1000 }

    @Test func aSignatureMadeWithTheSecretKeyVerifies() throws {
        let header = PaddleWebhookSignature.header(body: body, timestamp: seconds, secretKeys: [secretKey])
        try PaddleWebhookSignature.verify(header: header, body: body, secretKeys: [secretKey], now: now)
    }

    /// Paddle's documented scheme, computed independently of `header(…)`: HMAC-SHA256 of "ts:body", hex.
    @Test func theH1IsTheHexHMACOfTheTimestampColonBody() throws {
        let header = PaddleWebhookSignature.header(body: body, timestamp: 1_700_000_000, secretKeys: ["pdl_ntfset_abc"])
        #expect(header == "ts=1700000000;h1=" + Self.knownDigest)
        try PaddleWebhookSignature.verify(
            header: "ts=1700000000;h1=" + Self.knownDigest.uppercased(), body: body, secretKeys: ["pdl_ntfset_abc"],
            now: Instant(millisecondsSince1970: 1_700_000_000_000))
    }
    // printf '1700000000:{"event_id":"evt_1","event_type":"transaction.paid"}' | openssl dgst -sha256 -hmac pdl_ntfset_abc
    static let knownDigest = "a0397adb138361f26427f0c7d17dad818e3caf644abba795a7ed8749d6f8528f"

    @Test func duringARotationEitherSecretKeyVerifies() throws {
        let old = "pdl_ntfset_01hv_old_secret"
        let header = PaddleWebhookSignature.header(body: body, timestamp: seconds, secretKeys: [secretKey, old])
        #expect(header.components(separatedBy: ";h1=").count == 3)
        try PaddleWebhookSignature.verify(header: header, body: body, secretKeys: [old], now: now)
        try PaddleWebhookSignature.verify(header: header, body: body, secretKeys: [secretKey], now: now)
        // The receiver holding both keys while it rotates accepts a header signed with one.
        let newOnly = PaddleWebhookSignature.header(body: body, timestamp: seconds, secretKeys: [secretKey])
        try PaddleWebhookSignature.verify(header: newOnly, body: body, secretKeys: [old, secretKey], now: now)
        #expect(throws: PaddleSignatureError.noMatchingSignature) {
            try PaddleWebhookSignature.verify(header: newOnly, body: body, secretKeys: [old], now: now)
        }
    }

    @Test func aTamperedBodyOrAnotherKeyIsAMismatch() {
        let header = PaddleWebhookSignature.header(body: body, timestamp: seconds, secretKeys: [secretKey])
        var tampered = body
        tampered[tampered.startIndex + 2] ^= 0x01
        #expect(throws: PaddleSignatureError.noMatchingSignature) {
            try PaddleWebhookSignature.verify(header: header, body: tampered, secretKeys: [secretKey], now: now)
        }
        #expect(throws: PaddleSignatureError.noMatchingSignature) {
            try PaddleWebhookSignature.verify(header: header, body: body, secretKeys: ["pdl_other"], now: now)
        }
        // An empty key is never a key: no HMAC under "" can verify.
        let underEmpty = PaddleWebhookSignature.header(body: body, timestamp: seconds, secretKeys: [""])
        #expect(throws: PaddleSignatureError.noMatchingSignature) {
            try PaddleWebhookSignature.verify(header: underEmpty, body: body, secretKeys: [""], now: now)
        }
    }

    @Test func aSignatureOutsideTheToleranceIsStale() throws {
        for offset: Int64 in [-6, 6, -3600, 86_400 * 365] {
            let header = PaddleWebhookSignature.header(body: body, timestamp: seconds + offset, secretKeys: [secretKey])
            #expect(throws: PaddleSignatureError.outsideTolerance) {
                try PaddleWebhookSignature.verify(header: header, body: body, secretKeys: [secretKey], now: now)
            }
        }
        for offset: Int64 in [-5, 5] {
            let header = PaddleWebhookSignature.header(body: body, timestamp: seconds + offset, secretKeys: [secretKey])
            try PaddleWebhookSignature.verify(header: header, body: body, secretKeys: [secretKey], now: now)
        }
        let hourOld = PaddleWebhookSignature.header(body: body, timestamp: seconds - 3600, secretKeys: [secretKey])
        try PaddleWebhookSignature.verify(
            header: hourOld, body: body, secretKeys: [secretKey], now: now, tolerance: 3600)
    }

    @Test func extremeTimesAreStaleNotATrap() {
        let digest = String(repeating: "ab", count: 32)
        for (header, clock) in [
            ("ts=999999999999;h1=\(digest)", now), ("ts=0;h1=\(digest)", Instant(millisecondsSince1970: .max)),
            ("ts=999999999999;h1=\(digest)", Instant(millisecondsSince1970: .min)),
        ] {
            #expect(throws: PaddleSignatureError.outsideTolerance) {
                try PaddleWebhookSignature.verify(header: header, body: body, secretKeys: [secretKey], now: clock)
            }
        }
        // The widest tolerance lets the time pass; the signature is still checked.
        #expect(throws: PaddleSignatureError.noMatchingSignature) {
            try PaddleWebhookSignature.verify(
                header: "ts=0;h1=\(digest)", body: body, secretKeys: [secretKey], now: now, tolerance: .max)
        }
    }

    @Test func aMissingHeaderIsMissing() {
        for header: String? in [nil, ""] {
            #expect(throws: PaddleSignatureError.missingHeader) {
                try PaddleWebhookSignature.verify(header: header, body: body, secretKeys: [secretKey], now: now)
            }
        }
    }

    @Test func aMalformedHeaderIsMalformed() {
        let digest = String(repeating: "0f", count: 32)
        let malformed = [
            "h1=\(digest)",  // no ts
            "ts=1;ts=2;h1=\(digest)",  // two
            "ts=-5;h1=\(digest)", "ts=12a;h1=\(digest)", "ts=;h1=\(digest)", "ts=1e9;h1=\(digest)",
            "ts=1234567890123;h1=\(digest)",  // 13 digits: no time of Paddle's
            "ts=１７;h1=\(digest)",  // non-ASCII digits
            "ts=1700000000;garbage;h1=\(digest)",  // an entry that is not key=value
            "ts=1700000000,h1=\(digest)",  // Stripe's separator
            "ts=1700000000;h1=" + String(repeating: "a", count: 5000),  // too long
        ]
        for header in malformed {
            #expect(throws: PaddleSignatureError.malformedHeader, "\(header.prefix(40))") {
                try PaddleWebhookSignature(header: header)
            }
        }
    }

    @Test func aHeaderWithoutAWellFormedH1HasNoSignature() {
        for header in [
            "ts=1700000000", "ts=1700000000;h1=abc", "ts=1700000000;h1=" + String(repeating: "zz", count: 32),
            "ts=1700000000;h1=" + String(repeating: "ab", count: 33), "ts=1700000000;v1=" + Self.knownDigest,
            "ts=1700000000;h1=\u{0}" + String(repeating: "a", count: 63),
        ] {
            #expect(throws: PaddleSignatureError.noSignature) { try PaddleWebhookSignature(header: header) }
        }
    }

    @Test func paddleSimsHeaderParsesAsPaddleSendsIt() throws {
        let signature = try PaddleWebhookSignature(header: "ts=1700000000;h1=" + Self.knownDigest)
        #expect(signature.timestamp == 1_700_000_000)
        #expect(signature.signatures.count == 1 && signature.signatures[0].count == 32)
        #expect(PaddleSignatureError.outsideTolerance.code == "outside_tolerance")
    }
}
