import AppStore
import Foundation
import SubLedgerCore
import Testing

@Suite struct SignedDataVerifierTests {
    @Test func testNotificationVerifiesAgainstTestRoot() async throws {
        let verifier = try TestResources.vectorVerifier()
        let payload = try await verifier.verifyNotification(TestResources.signedData("testNotification"))
        #expect(payload.notificationType == .test)
        #expect(payload.notificationUUID == "9ad56bd2-0bc6-42e0-af24-fd996d87a1e6")
        #expect(payload.data?.bundleID == "com.example")
        #expect(payload.data?.appAppleID == 1234)
        #expect(payload.signedDate == 1_681_314_324_000)
    }

    @Test func transactionInfoVerifiesAgainstTestRoot() async throws {
        let verifier = try TestResources.vectorVerifier()
        let payload = try await verifier.verifyTransaction(TestResources.signedData("transactionInfo"))
        #expect(payload.bundleID == "com.example")
        #expect(payload.environment == .sandbox)
    }

    @Test func renewalInfoVerifiesAgainstTestRoot() async throws {
        let verifier = try TestResources.vectorVerifier()
        let payload = try await verifier.verifyRenewalInfo(TestResources.signedData("renewalInfo"))
        #expect(payload.environment == .sandbox)
        #expect(payload.signedDate == 1_672_956_154_000)
    }
}

@Suite struct AppleVectorRejectionTests {
    @Test func wrongBundleIDFailsWithAppIdentifierError() async throws {
        let verifier = try TestResources.vectorVerifier()
        await #expect(throws: JWSVerificationError(.invalidAppIdentifier)) {
            try await verifier.verifyNotification(TestResources.signedData("wrongBundleId"))
        }
    }

    @Test func missingX5CHeaderClaimFails() async throws {
        let verifier = try TestResources.vectorVerifier()
        await #expect(throws: JWSVerificationError(.missingCertificateChain)) {
            try await verifier.verifyNotification(TestResources.signedData("missingX5CHeaderClaim"))
        }
    }

    @Test(arguments: ["testNotification", "transactionInfo", "renewalInfo", "wrongBundleId"])
    func vectorsFailAgainstAppleRootCAG3(name: String) async throws {
        let verifier = try TestResources.vectorVerifier(roots: [TrustedRoot.appleRootCAG3()])
        await #expect(throws: JWSVerificationError(.invalidCertificateChain)) {
            _ = try await verifier.signatureVerifier.verify(TestResources.signedData(name))
        }
    }

    @Test func transactionFailsWhenExpectingProduction() async throws {
        let verifier = try TestResources.vectorVerifier(environment: .production)
        await #expect(throws: JWSVerificationError(.invalidEnvironment)) {
            try await verifier.verifyTransaction(TestResources.signedData("transactionInfo"))
        }
    }

    @Test func transactionFailsForAnotherBundle() async throws {
        let verifier = try TestResources.vectorVerifier(bundleID: "com.example.other")
        await #expect(throws: JWSVerificationError(.invalidAppIdentifier)) {
            try await verifier.verifyTransaction(TestResources.signedData("transactionInfo"))
        }
    }

    @Test(arguments: ["", "a.b", "a.b.c.d", "..", "eyJ.eyJ.", "not a token at all"])
    func malformedTokensAreRejected(token: String) async throws {
        let verifier = try TestResources.vectorVerifier()
        await #expect(throws: JWSVerificationError(.malformedJWS)) {
            _ = try await verifier.signatureVerifier.verify(token)
        }
    }

    /// The byte-level parser: surrounding ASCII whitespace is ignored; anything else that is not exactly the
    /// canonical three-segment token (inner whitespace, a non-ASCII character, padding, a fourth segment) fails.
    @Test func compactParsingIsExactAboutBytes() async throws {
        let token = try TestResources.signedData("transactionInfo")
        let parsed = try CompactJWS(token)
        let padded = try CompactJWS(" \n\t\(token)\r\n")
        #expect(padded.payload == parsed.payload && padded.signingInput == parsed.signingInput)
        #expect(parsed.signingInput == Data(token.split(separator: ".")[0...1].joined(separator: ".").utf8))
        let verifier = try TestResources.vectorVerifier()
        _ = try await verifier.verifyTransaction(" \(token)\n")
        let middle = token.index(token.startIndex, offsetBy: token.count / 2)
        for broken in [
            token.replacingCharacters(in: middle...middle, with: " "),
            token.replacingCharacters(in: middle...middle, with: "é"),
            token + "=", token + ".", "." + token, token.replacingOccurrences(of: ".", with: ".."),
        ] {
            #expect(throws: JWSVerificationError(.malformedJWS)) { try CompactJWS(broken) }
        }
    }

    /// Changes one decoded byte of one segment and re-encodes it, so the token stays well-formed base64url.
    static func flipping(_ token: String, segment: Int, byte: Int) -> String {
        var segments = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        var bytes = [UInt8](Base64URL.decode(segments[segment])!)
        bytes[byte] ^= 0x01
        segments[segment] = Base64URL.encode(bytes)
        return segments.joined(separator: ".")
    }

    @Test(arguments: [0, 1, 2])
    func everyChangedByteFails(segment: Int) async throws {
        let verifier = try TestResources.vectorVerifier()
        let token = try TestResources.signedData("transactionInfo")
        _ = try await verifier.verifyTransaction(token)
        let length = Base64URL.decode(token.split(separator: ".")[segment])!.count
        // The header is ~1.9 kB of certificates; every 5th byte keeps the loop quick while covering the
        // JSON, each certificate and the algorithm. Payload and signature: every byte.
        let stride = segment == 0 ? 5 : 1
        var checked = 0
        for position in Swift.stride(from: 0, to: length, by: stride) {
            let tampered = Self.flipping(token, segment: segment, byte: position)
            await #expect(throws: JWSVerificationError.self, "byte \(position) of segment \(segment)") {
                try await verifier.verifyTransaction(tampered)
            }
            checked += 1
        }
        #expect(checked > 40)
    }
}
