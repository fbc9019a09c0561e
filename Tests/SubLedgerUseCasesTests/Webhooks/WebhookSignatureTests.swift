import Testing

@testable import SubLedgerUseCases

@Suite("Webhook signatures")
struct WebhookSignatureTests {
    let body = Array(#"{"id":"evt"}"#.utf8)
    // Computed independently with Python's hmac module: hmac.new(b"whsec_test", b'1700000000.{"id":"evt"}', sha256).
    let expected = "a94cea056df1fbb92eadafcf2c5cd541dbe0c6ef736e4748202dd53f86694a3e"
    let expectedOld = "2c0e29ccbd587b1a6121b816c6a865f95b68565ed9f2c084f25cf503f67126be"

    @Test func signatureIsHMACSHA256OfTimestampDotBody() {
        #expect(WebhookSignature.signature(body: body, timestamp: 1_700_000_000, secret: "whsec_test") == expected)
    }

    @Test func headerCarriesOneSignaturePerSecretDuringRotation() {
        let header = WebhookSignature.header(
            body: body, timestamp: 1_700_000_000, secrets: ["whsec_test", "whsec_old"])
        #expect(header == "t=1700000000,v1=\(expected),v1=\(expectedOld)")
    }

    @Test func verifyAcceptsAnySecretWithinTolerance() throws {
        let header = "t=1700000000,v1=\(expectedOld)"
        let t = try WebhookSignature.verify(
            header: header, body: body, secrets: ["whsec_test", "whsec_old"], now: 1_700_000_299)
        #expect(t == 1_700_000_000)
        // Whitespace around elements and unknown schemes are tolerated.
        try WebhookSignature.verify(
            header: "t=1700000000, v0=zz, v1=\(expected)", body: body, secrets: ["whsec_test"], now: 1_699_999_800)
    }

    @Test func verifyRefusesATamperedBodyOrWrongSecret() {
        let header = "t=1700000000,v1=\(expected)"
        #expect(
            throws: WebhookSignatureError(
                .noMatchingSignature, "no v1 signature matches the body with any of the secrets")
        ) {
            try WebhookSignature.verify(
                header: header, body: Array(#"{"id":"evu"}"#.utf8), secrets: ["whsec_test"], now: 1_700_000_000)
        }
        #expect(throws: WebhookSignatureError.self) {
            try WebhookSignature.verify(header: header, body: body, secrets: ["whsec_other"], now: 1_700_000_000)
        }
    }

    @Test func verifyRefusesReplaysOutsideTheTolerance() {
        let header = "t=1700000000,v1=\(expected)"
        for now: Int64 in [1_700_000_301, 1_699_999_699, Int64.max, Int64.min] {
            do {
                try WebhookSignature.verify(header: header, body: body, secrets: ["whsec_test"], now: now)
                Issue.record("accepted at \(now)")
            } catch {
                #expect(error.code == .timestampOutOfTolerance)
            }
        }
    }

    @Test(arguments: [
        "", "t=", "t=abc,v1=\(String(repeating: "0", count: 64))", "v1=\(String(repeating: "0", count: 64))",
        "t=1700000000", "t=1700000000,v1=abc", "t=1700000000,v1=\(String(repeating: "g", count: 64))",
        "t=1,t=2,v1=\(String(repeating: "0", count: 64))", "t=-5,v1=\(String(repeating: "0", count: 64))",
        "t=99999999999,v1=\(String(repeating: "0", count: 64))", "garbage", String(repeating: "t=1,", count: 2000),
    ])
    func malformedHeadersAreRefusedWithACode(header: String) {
        do {
            try WebhookSignature.verify(header: header, body: body, secrets: ["whsec_test"], now: 1_700_000_000)
            Issue.record("accepted \(header)")
        } catch {
            #expect(error.code == .malformedHeader)
        }
    }

    @Test func generatedSecretsAreDistinctAndURLSafe() {
        let a = WebhookSignature.generateSecret()
        let b = WebhookSignature.generateSecret()
        #expect(a != b)
        #expect(a.hasPrefix("whsec_"))
        #expect(a.count == 6 + 43)
        #expect(
            a.utf8.allSatisfy {
                $0 == 0x2D || $0 == 0x5F || (0x30...0x39).contains($0) || (0x41...0x5A).contains($0)
                    || (0x61...0x7A).contains($0)
            })
    }
}
