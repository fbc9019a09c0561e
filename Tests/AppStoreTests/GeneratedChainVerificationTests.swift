import AppStore
import AppStoreTestSupport
import Foundation
import SubLedgerCore
import Synchronization
import Testing

@Suite struct GeneratedChainVerificationTests {
    @Test func generatedChainSignsVerifiableTransactions() async throws {
        let chain = try TestChains.chain()
        let token = try JWSSigner(chain: chain).sign(TestChains.transaction())
        let verifier = try TestChains.verifier(roots: [chain.trustedRoot])
        let payload = try await verifier.verifyTransaction(token)
        #expect(payload.transactionID == "2000000000000001")
        let core = try payload.coreTransaction(source: .signedTransaction)
        #expect(core.source == .signedTransaction)
        #expect(core.environment == .sandbox)
        #expect(core.price == 9990)
    }

    @Test func leafWithoutAppleOIDIsRejected() async throws {
        let chain = try TestChains.chain(.init(leafHasAppleOID: false))
        let token = try JWSSigner(chain: chain).sign(TestChains.transaction())
        await #expect(throws: JWSVerificationError(.missingAppleOID)) {
            try await TestChains.verifier(roots: [chain.trustedRoot]).verifyTransaction(token)
        }
    }

    @Test func intermediateWithoutAppleOIDIsRejected() async throws {
        let chain = try TestChains.chain(.init(intermediateHasAppleOID: false))
        let token = try JWSSigner(chain: chain).sign(TestChains.transaction())
        await #expect(throws: JWSVerificationError(.missingAppleOID)) {
            try await TestChains.verifier(roots: [chain.trustedRoot]).verifyTransaction(token)
        }
    }

    @Test func strictRootRequiresKeyIdentifiersAndRelaxedRootDoesNot() async throws {
        let chain = try TestChains.chain(.init(includeKeyIdentifiers: false))
        let token = try JWSSigner(chain: chain).sign(TestChains.transaction())
        let strict = TrustedRoot(certificate: chain.root, strictRFC5280: true)
        await #expect(throws: JWSVerificationError(.invalidCertificateChain)) {
            try await TestChains.verifier(roots: [strict]).verifyTransaction(token)
        }
        let relaxed = TrustedRoot(certificate: chain.root, strictRFC5280: false)
        let payload = try await TestChains.verifier(roots: [relaxed]).verifyTransaction(token)
        #expect(payload.transactionID != nil)
    }

    @Test func chainToAnUnconfiguredRootIsRejected() async throws {
        let signing = try TestChains.chain()
        let other = try TestChains.chain()
        let token = try JWSSigner(chain: signing).sign(TestChains.transaction())
        await #expect(throws: JWSVerificationError(.invalidCertificateChain)) {
            try await TestChains.verifier(roots: [other.trustedRoot]).verifyTransaction(token)
        }
    }

    @Test func certificatesAreCheckedAtSignedDateOrNowAsConfigured() async throws {
        // Valid 2020-09 .. 2023-11; signed inside that window; "now" is after it.
        let chain = try SigningChain.generate(
            notValidBefore: TestChains.notBefore,
            notValidAfter: Instant(millisecondsSince1970: 1_700_000_000_000)
        )
        let token = try JWSSigner(chain: chain).sign(TestChains.transaction(signedDate: 1_650_000_000_000))
        let later = Instant(millisecondsSince1970: 1_800_000_000_000)
        let atSignedDate = try TestChains.verifier(roots: [chain.trustedRoot], validationTime: .signedDate, now: later)
        #expect(try await atSignedDate.verifyTransaction(token).signedDate == 1_650_000_000_000)
        let atNow = try TestChains.verifier(roots: [chain.trustedRoot], validationTime: .now, now: later)
        await #expect(throws: JWSVerificationError(.invalidCertificateChain)) {
            try await atNow.verifyTransaction(token)
        }
        let signedAfterExpiry = try JWSSigner(chain: chain).sign(TestChains.transaction(signedDate: 1_750_000_000_000))
        await #expect(throws: JWSVerificationError(.invalidCertificateChain)) {
            try await atSignedDate.verifyTransaction(signedAfterExpiry)
        }
    }

    @Test func signingDateIsReadFromTheTopLevelMemberHoweverItIsWritten() async throws {
        // Valid 2020-09 .. 2023-11; "now" is after it, so only a date read from the payload verifies.
        let chain = try SigningChain.generate(
            notValidBefore: TestChains.notBefore,
            notValidAfter: Instant(millisecondsSince1970: 1_700_000_000_000)
        )
        let layer = try TestChains.verifier(
            roots: [chain.trustedRoot], validationTime: .signedDate,
            now: Instant(millisecondsSince1970: 1_800_000_000_000)
        ).signatureVerifier
        let signer = JWSSigner(chain: chain)
        // An escaped key and spaces around the value still name `signedDate`.
        let escapedJSON = #"{"a":{"signedDate":1},"\u0073ignedDate" : 1650000000000 }"#
        let escaped = try signer.sign(payloadBytes: Data(escapedJSON.utf8))
        #expect(
            try await layer.verify(escaped).certificatesCheckedAt == Instant(millisecondsSince1970: 1_650_000_000_000))
        // A nested `signedDate` is not the payload's: the clock decides, and the chain has expired by then.
        let nestedOnly = try signer.sign(payloadBytes: Data(#"{"data":{"signedDate":1650000000000}}"#.utf8))
        await #expect(throws: JWSVerificationError(.invalidCertificateChain)) { try await layer.verify(nestedOnly) }
        // A date that is not a number reads as absent (the payload decoder reports it).
        let text = try signer.sign(payloadBytes: Data(#"{"signedDate":"1650000000000"}"#.utf8))
        await #expect(throws: JWSVerificationError(.invalidCertificateChain)) { try await layer.verify(text) }
    }

    @Test func onlyES256IsAccepted() async throws {
        let chain = try TestChains.chain()
        let header = JWSHeader(algorithm: "HS256", certificateChain: try chain.x5c())
        let payload = try JSONEncoder().encode(TestChains.transaction())
        let token = try JWSSigner(chain: chain).sign(payloadBytes: payload, header: header)
        await #expect(throws: JWSVerificationError(.unsupportedAlgorithm)) {
            try await TestChains.verifier(roots: [chain.trustedRoot]).verifyTransaction(token)
        }
    }

    @Test(arguments: [0, 1, 2, 4])
    func x5cMustHoldExactlyThreeCertificates(count: Int) async throws {
        let chain = try TestChains.chain()
        let certificates = try chain.x5c()
        let x5c = (0..<count).map { certificates[min($0, 2)] }
        let header = JWSHeader(algorithm: "ES256", certificateChain: x5c)
        let token = try JWSSigner(chain: chain).sign(
            payloadBytes: try JSONEncoder().encode(TestChains.transaction()),
            header: header
        )
        await #expect(throws: JWSVerificationError(.missingCertificateChain)) {
            try await TestChains.verifier(roots: [chain.trustedRoot]).verifyTransaction(token)
        }
    }

    @Test func signatureOfAnotherKeyIsRejected() async throws {
        let chain = try TestChains.chain()
        let impostor = try TestChains.chain()
        // Signed by the impostor's leaf but presenting the genuine chain.
        let forged = try JWSSigner(
            chain: SigningChain(
                root: chain.root,
                intermediate: chain.intermediate,
                leaf: chain.leaf,
                leafPrivateKey: impostor.leafPrivateKey
            )
        ).sign(TestChains.transaction())
        await #expect(throws: JWSVerificationError(.invalidSignature)) {
            try await TestChains.verifier(roots: [chain.trustedRoot]).verifyTransaction(forged)
        }
    }

    @Test func cachedChainStillChecksEverySignature() async throws {
        let chain = try TestChains.chain()
        let signer = JWSSigner(chain: chain)
        let verifier = try TestChains.verifier(roots: [chain.trustedRoot])
        _ = try await verifier.verifyTransaction(signer.sign(TestChains.transaction(id: "1")))
        _ = try await verifier.verifyTransaction(signer.sign(TestChains.transaction(id: "2")))
        #expect(verifier.signatureVerifier.cachedChainCount == 1)
        let tampered = AppleVectorRejectionTests.flipping(
            try signer.sign(TestChains.transaction(id: "3")),
            segment: 2,
            byte: 10
        )
        await #expect(throws: JWSVerificationError(.invalidSignature)) {
            try await verifier.verifyTransaction(tampered)
        }
    }

    @Test func chainCacheIsBounded() async throws {
        let chains = try (0..<3).map { _ in try TestChains.chain() }
        let verifier = try TestChains.verifier(roots: chains.map(\.trustedRoot), cacheCapacity: 2)
        for chain in chains {
            _ = try await verifier.verifyTransaction(JWSSigner(chain: chain).sign(TestChains.transaction()))
        }
        #expect(verifier.signatureVerifier.cachedChainCount == 2)
    }

    /// The chain used last is compared before the cache is searched; it is still held to its validity on the
    /// verifier's clock, and any other chain is still built and checked.
    @Test func theChainUsedLastIsRefusedOnceExpiredAndOtherChainsAreStillChecked() async throws {
        // Valid 2020-09 .. 2023-11, checked at the clock's now.
        let expiring = try SigningChain.generate(
            notValidBefore: TestChains.notBefore, notValidAfter: Instant(millisecondsSince1970: 1_700_000_000_000))
        let other = try TestChains.chain()
        let unconfigured = try TestChains.chain()
        let clock = Mutex(Instant(millisecondsSince1970: 1_650_000_000_000))
        let verifier = try SignedDataVerifier(
            configuration: .init(
                bundleID: "com.example", appAppleID: 1234, environment: .sandbox,
                signature: .init(roots: [expiring.trustedRoot, other.trustedRoot], validationTime: .now)),
            now: { clock.withLock { $0 } })
        let token = try JWSSigner(chain: expiring).sign(TestChains.transaction(id: "1"))
        _ = try await verifier.verifyTransaction(token)
        #expect(try await verifier.verifyTransaction(token).transactionID == "1")
        #expect(verifier.signatureVerifier.cachedChainCount == 1)

        // A chain that is not the one used last, to a root not configured: refused, not taken for it.
        await #expect(throws: JWSVerificationError(.invalidCertificateChain)) {
            try await verifier.verifyTransaction(JWSSigner(chain: unconfigured).sign(TestChains.transaction(id: "2")))
        }
        #expect(try await verifier.verifyTransaction(token).transactionID == "1")

        // Past the leaf's notAfter on the clock: the cached chain is refused, as it is once another chain was used.
        clock.withLock { $0 = Instant(millisecondsSince1970: 1_750_000_000_000) }
        await #expect(throws: JWSVerificationError(.invalidCertificateChain)) {
            try await verifier.verifyTransaction(token)
        }
        let otherToken = try JWSSigner(chain: other).sign(TestChains.transaction(id: "3"))
        #expect(try await verifier.verifyTransaction(otherToken).transactionID == "3")
        #expect(verifier.signatureVerifier.cachedChainCount == 2)
        await #expect(throws: JWSVerificationError(.invalidCertificateChain)) {
            try await verifier.verifyTransaction(token)
        }
        #expect(try await verifier.verifyTransaction(otherToken).transactionID == "3")
    }

    @Test func productionRequiresAppAppleIDAndChecksIt() async throws {
        let chain = try TestChains.chain()
        #expect(throws: JWSVerificationError(.invalidConfiguration)) {
            try TestChains.verifier(roots: [chain.trustedRoot], environment: .production, appAppleID: nil)
        }
        let verifier = try TestChains.verifier(roots: [chain.trustedRoot], environment: .production, appAppleID: 1234)
        let signer = JWSSigner(chain: chain)
        let otherApp = ResponseBodyV2DecodedPayload(
            rawNotificationType: "TEST",
            notificationUUID: "e4b5b1b0-0000-4000-8000-000000000001",
            data: NotificationData(rawEnvironment: "Production", appAppleID: 9999, bundleID: "com.example"),
            version: "2.0",
            signedDate: 1_700_000_000_000
        )
        await #expect(throws: JWSVerificationError(.invalidAppIdentifier)) {
            try await verifier.verifyNotification(signer.sign(otherApp))
        }
        var sameApp = otherApp
        sameApp.data?.appAppleID = 1234
        #expect(try await verifier.verifyNotification(signer.sign(sameApp)).notificationType == .test)
    }

    @Test func unparseablePayloadIsMalformed() async throws {
        let chain = try TestChains.chain()
        let token = try JWSSigner(chain: chain).sign(payloadBytes: Data("[1,2,3]".utf8))
        await #expect(throws: JWSVerificationError(.malformedPayload)) {
            try await TestChains.verifier(roots: [chain.trustedRoot]).verifyTransaction(token)
        }
    }

    @Test func errorDescriptionsNameOnlyTheCode() {
        let error = JWSVerificationError(.invalidSignature, detail: "ES256 signature does not verify")
        #expect(error.description == "JWSVerificationError(invalidSignature)")
    }
}
