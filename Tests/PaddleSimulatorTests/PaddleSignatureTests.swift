import Foundation
import Testing

@testable import PaddleSimulator

@Suite struct PaddleSignatureTests {
    @Test func signsTimestampColonBodyWithTheSecretKey() {
        // HMAC-SHA256 of "1700000000:{}" keyed with "secret", computed independently with Python's hmac module.
        let header = PaddleSignature.header(body: Data("{}".utf8), secretKey: "secret", timestamp: 1_700_000_000)
        #expect(header == "ts=1700000000;h1=90d1dfc305363e56438c2a03dac8b91f27a9842b7e361afe3743831bca23c856")
    }

    @Test func verifiesOnlyTheSignedBodyWithTheRightKeyWithinTheTolerance() {
        let body = Data(#"{"event_type":"subscription.created"}"#.utf8)
        let header = PaddleSignature.header(body: body, secretKey: "pdl_ntfset_key", timestamp: 1000)
        #expect(PaddleSignature.verify(header: header, body: body, secretKey: "pdl_ntfset_key", now: 1003))
        #expect(
            !PaddleSignature.verify(header: header, body: body + Data(" ".utf8), secretKey: "pdl_ntfset_key", now: 1000)
        )
        #expect(!PaddleSignature.verify(header: header, body: body, secretKey: "pdl_ntfset_other", now: 1000))
        #expect(!PaddleSignature.verify(header: header, body: body, secretKey: "pdl_ntfset_key", now: 1006))
        #expect(!PaddleSignature.verify(header: "ts=1000", body: body, secretKey: "pdl_ntfset_key", now: 1000))
        #expect(!PaddleSignature.verify(header: "garbage", body: body, secretKey: "pdl_ntfset_key", now: 1000))
    }
}
