import Foundation
import Testing

@testable import PaddleSimulator

@Suite struct PaddleSignatureTests {
    @Test func signsTimestampColonBodyWithTheSecretKey() {
        // HMAC-SHA256 of "1700000000:{}" keyed with "secret", computed independently with Python's hmac module.
        let header = PaddleSignature.header(body: Data("{}".utf8), secretKey: "secret", timestamp: 1_700_000_000)
        #expect(header == "ts=1700000000;h1=90d1dfc305363e56438c2a03dac8b91f27a9842b7e361afe3743831bca23c856")
    }
}
