import AppStore
import AppStoreTestSupport
import Foundation
import SubLedgerCore
import Testing

/// Data from Xcode's StoreKit testing and from local testing is accepted the way Apple's App Store Server
/// Library accepts it: decoded without chain or signature, for a verifier of exactly that environment only.
@Suite struct UnsignedEnvironmentVerificationTests {
    /// A chain no verifier trusts, standing in for Xcode's local StoreKit certificate.
    static func xcodeSigner() throws -> JWSSigner { JWSSigner(chain: try TestChains.chain()) }

    @Test func xcodeTransactionVerifiesForAnXcodeVerifierWithoutAnAppStoreChain() async throws {
        let token = try Self.xcodeSigner().sign(TestChains.transaction(environment: "Xcode"))
        let verifier = try TestResources.vectorVerifier(environment: .xcode)
        let payload = try await verifier.verifyTransaction(token)
        #expect(payload.transactionID == "2000000000000001")
        #expect(try payload.coreTransaction(source: .signedTransaction).environment == .xcode)
        let renewal = try await verifier.verifyRenewalInfo(
            try Self.xcodeSigner().sign(TestChains.renewal(environment: "Xcode")))
        #expect(renewal.environment == .xcode)
    }

    /// Xcode signs an app transaction with no original purchase as `originalPurchaseDate` 0000-12-30 (Swift's
    /// `Date.distantPast`); the payload is Xcode's and accepted, the date read as absent. Any other receipt type
    /// with that date, or an Xcode payload with another date outside the accepted range, is still refused.
    @Test func xcodesYearOneOriginalPurchaseDateIsAbsent() async throws {
        func appTransaction(_ receiptType: String, originalPurchaseDate: String) -> Data {
            Data(
                #"{"receiptType":"\#(receiptType)","appAppleId":1234,"bundleId":"com.example","applicationVersion":"1","originalPurchaseDate":\#(originalPurchaseDate),"receiptCreationDate":1700000000000,"appTransactionId":"704289572311348480"}"#
                    .utf8)
        }
        let verifier = try TestResources.vectorVerifier(environment: .xcode)
        let token = try Self.xcodeSigner().sign(
            payloadBytes: appTransaction("Xcode", originalPurchaseDate: "-62135769600000"))
        let verified = try await verifier.verifyAppTransaction(token)
        #expect(verified.originalPurchaseDate == nil)
        #expect(verified.receiptCreationDate == 1_700_000_000_000)
        #expect(verified.appTransactionID == "704289572311348480")
        #expect(verified.environment == .xcode)

        let dated = try JSONDecoder().decode(
            AppTransaction.self, from: appTransaction("Xcode", originalPurchaseDate: "1600000000000"))
        #expect(dated.originalPurchaseDate == 1_600_000_000_000)
        for (receiptType, date) in [("Sandbox", "-62135769600000"), ("Production", "-62135769600000"), ("Xcode", "-1")]
        {
            #expect(throws: DecodingError.self, "\(receiptType) \(date)") {
                try JSONDecoder().decode(
                    AppTransaction.self, from: appTransaction(receiptType, originalPurchaseDate: date))
            }
        }
    }

    @Test func applesLocalTestingVectorVerifiesForALocalTestingVerifier() async throws {
        let payload = try TestResources.model("signedTransaction")
        let token = try Self.xcodeSigner().sign(payloadBytes: payload)
        let verified = try await TestResources.vectorVerifier(environment: .localTesting).verifyTransaction(token)
        #expect(verified.transactionID == "23456")
        #expect(verified.environment == .localTesting)
        // A token with no usable header at all still decodes: Apple's library checks nothing but the form.
        let bare = try JWSSigner(chain: try TestChains.chain()).sign(
            payloadBytes: payload, header: JWSHeader(algorithm: "none", certificateChain: nil))
        #expect(
            try await TestResources.vectorVerifier(environment: .localTesting).verifyTransaction(bare)
                .transactionID == "23456")
    }

    @Test func unsignedDataNeverPassesASignedEnvironmentsVerifier() async throws {
        let xcode = try Self.xcodeSigner().sign(TestChains.transaction(environment: "Xcode"))
        for environment in [StoreEnvironment.sandbox, .production] {
            await #expect(throws: JWSVerificationError(.invalidCertificateChain)) {
                try await TestResources.vectorVerifier(environment: environment).verifyTransaction(xcode)
            }
        }
        // Data claiming a signed environment is refused by the unsigned environments' verifiers.
        for claimed in ["Production", "Sandbox", "LocalTesting", "xcode", "XCODE"] {
            let token = try Self.xcodeSigner().sign(TestChains.transaction(environment: claimed))
            await #expect(throws: JWSVerificationError(.invalidEnvironment), "\(claimed)") {
                try await TestResources.vectorVerifier(environment: .xcode).verifyTransaction(token)
            }
        }
        await #expect(throws: JWSVerificationError(.invalidAppIdentifier)) {
            try await TestResources.vectorVerifier(bundleID: "com.example.other", environment: .xcode)
                .verifyTransaction(xcode)
        }
    }

    @Test func unsignedDataMustStillBeWellFormed() async throws {
        let verifier = try TestResources.vectorVerifier(environment: .xcode)
        await #expect(throws: JWSVerificationError(.malformedJWS)) { try await verifier.verifyTransaction("a.b") }
        let chain = try TestChains.chain()
        let critical = try JWSSigner(chain: chain).sign(
            payloadBytes: try JSONEncoder().encode(TestChains.transaction(environment: "Xcode")),
            header: JWSHeader(algorithm: "ES256", certificateChain: try chain.x5c(), critical: ["b64"]))
        await #expect(throws: JWSVerificationError(.unsupportedCriticalHeader)) {
            try await verifier.verifyTransaction(critical)
        }
    }

    @Test func anAlreadyParsedTokenVerifiesAsItsTextAndStillHasItsHeaderChecked() async throws {
        let chain = try TestChains.chain()
        let signer = JWSSigner(chain: chain)
        let verifier = try TestChains.verifier(roots: [chain.trustedRoot])
        let token = try signer.sign(TestChains.transaction())
        let parsed = try JWSSignatureVerifier.decode(token)
        #expect(try await verifier.verifyTransaction(parsed) == verifier.verifyTransaction(token))
        // A token parsed without `decode` still has its `crit` refused, signed by the App Store or not.
        for (environment, verifier) in [
            ("Sandbox", verifier), ("Xcode", try TestResources.vectorVerifier(environment: .xcode)),
        ] {
            let critical = try CompactJWS(
                signer.sign(
                    payloadBytes: try JSONEncoder().encode(TestChains.transaction(environment: environment)),
                    header: JWSHeader(algorithm: "ES256", certificateChain: try chain.x5c(), critical: ["b64"])))
            await #expect(throws: JWSVerificationError(.unsupportedCriticalHeader)) {
                try await verifier.verifyTransaction(critical)
            }
        }
    }

    @Test func inspectorReportsXcodeDataWithoutChainAndSignatureChecks() async throws {
        let token = try Self.xcodeSigner().sign(TestChains.transaction(environment: "Xcode"))
        let inspector = ArtifactInspector(
            configuration: .init(roots: [try TestResources.testRoot()], bundleID: "com.example", environment: .xcode),
            now: { TestChains.now })
        let report = await inspector.inspect(Data(token.utf8))
        #expect(report.verified)
        #expect(report.checks == ["structure", "appIdentity", "environment"])
        let withoutApp = ArtifactInspector(
            configuration: .init(roots: [try TestResources.testRoot()], environment: .xcode), now: { TestChains.now })
        let refused = await withoutApp.inspect(Data(token.utf8))
        #expect(!refused.verified)
        #expect(refused.reason == "ArtifactInspector.bundleIDRequiredForUnsignedEnvironment")
    }
}

/// An app transaction's signing moment is its `receiptCreationDate`, as in Apple's library.
@Suite struct AppTransactionValidationTimeTests {
    /// Valid 2020-09 .. 2023-11, while the verifier's clock says 2027.
    static func expiredChain() throws -> SigningChain {
        try SigningChain.generate(
            notValidBefore: TestChains.notBefore, notValidAfter: Instant(millisecondsSince1970: 1_700_000_000_000))
    }

    /// An app transaction's JSON as Apple signs it (no `signedDate`; `receiptCreationDate` when given).
    static func appTransaction(receiptCreationDate: Int64?, receiptType: String = "Sandbox") -> Data {
        var fields = [
            #""receiptType":"\#(receiptType)""#, #""appAppleId":1234"#, #""bundleId":"com.example""#,
            #""applicationVersion":"1""#, #""originalPurchaseDate":1600000000000"#,
            #""originalApplicationVersion":"1""#, #""appTransactionId":"704289572311348480""#,
        ]
        if let receiptCreationDate { fields.append(#""receiptCreationDate":\#(receiptCreationDate)"#) }
        return Data(("{" + fields.joined(separator: ",") + "}").utf8)
    }

    @Test func appTransactionWithoutSignedDateIsCheckedAtReceiptCreationDate() async throws {
        let chain = try Self.expiredChain()
        let verifier = try TestChains.verifier(
            roots: [chain.trustedRoot], now: Instant(millisecondsSince1970: 1_800_000_000_000))
        let insideValidity = try JWSSigner(chain: chain).sign(
            payloadBytes: Self.appTransaction(receiptCreationDate: 1_650_000_000_000))
        let verified = try await verifier.verifyAppTransaction(insideValidity)
        #expect(verified.appTransactionID == "704289572311348480")

        let afterExpiry = try JWSSigner(chain: chain).sign(
            payloadBytes: Self.appTransaction(receiptCreationDate: 1_750_000_000_000))
        await #expect(throws: JWSVerificationError(.invalidCertificateChain)) {
            try await verifier.verifyAppTransaction(afterExpiry)
        }
        // Without any date the clock decides, as in Apple's library.
        let undated = try JWSSigner(chain: chain).sign(payloadBytes: Self.appTransaction(receiptCreationDate: nil))
        await #expect(throws: JWSVerificationError(.invalidCertificateChain)) {
            try await verifier.verifyAppTransaction(undated)
        }
        // The generic layer uses the app transaction's date when asked to.
        let layer = verifier.signatureVerifier
        #expect(
            try await layer.verify(insideValidity, signingDate: .receiptCreationDate).certificatesCheckedAt
                == Instant(millisecondsSince1970: 1_650_000_000_000))
    }

    @Test func aSigningDateThatIsNoInstantRefusesThePayload() async throws {
        let chain = try TestChains.chain()
        let verifier = try TestChains.verifier(roots: [chain.trustedRoot])
        for date in ["-1", "1e300", "9223372036854775807"] {
            let json =
                #"{"receiptType":"Sandbox","bundleId":"com.example","appAppleId":1234,"receiptCreationDate":"#
                + date + "}"
            let token = try JWSSigner(chain: chain).sign(payloadBytes: Data(json.utf8))
            await #expect(throws: JWSVerificationError(.malformedPayload), "\(date)") {
                try await verifier.verifyAppTransaction(token)
            }
        }
    }
}

/// The environment's spelling, `crit`, and repeated keys, where Apple's library is the reference.
@Suite struct SignedDataStrictnessTests {
    @Test(arguments: ["sandbox", "SANDBOX", "ProductionSandbox", " Sandbox", "Sandbox "])
    func environmentMustBeSpelledExactlyAsApple(spelling: String) async throws {
        let chain = try TestChains.chain()
        let signer = JWSSigner(chain: chain)
        let verifier = try TestChains.verifier(roots: [chain.trustedRoot])
        await #expect(throws: JWSVerificationError(.invalidEnvironment)) {
            try await verifier.verifyTransaction(signer.sign(TestChains.transaction(environment: spelling)))
        }
        await #expect(throws: JWSVerificationError(.invalidEnvironment)) {
            try await verifier.verifyRenewalInfo(signer.sign(TestChains.renewal(environment: spelling)))
        }
        let appTransaction = AppTransactionValidationTimeTests.appTransaction(
            receiptCreationDate: 1_700_000_000_000, receiptType: spelling)
        await #expect(throws: JWSVerificationError(.invalidEnvironment)) {
            try await verifier.verifyAppTransaction(signer.sign(payloadBytes: appTransaction))
        }
        let notification =
            #"{"notificationType":"TEST","notificationUUID":"e4b5b1b0-0000-4000-8000-000000000002","#
            + #""data":{"environment":"\#(spelling)","appAppleId":1234,"bundleId":"com.example"},"#
            + #""version":"2.0","signedDate":1700000000000}"#
        await #expect(throws: JWSVerificationError(.invalidEnvironment)) {
            try await verifier.verifyNotification(signer.sign(payloadBytes: Data(notification.utf8)))
        }
        // Apple's spelling passes.
        _ = try await verifier.verifyTransaction(signer.sign(TestChains.transaction(environment: "Sandbox")))
    }

    @Test func productionSpellingsOfReceiptsAreNotAJWSEnvironment() async throws {
        let chain = try TestChains.chain()
        let verifier = try TestChains.verifier(roots: [chain.trustedRoot], environment: .production)
        for spelling in ["PROD", "production", "PRODUCTION"] {
            let token = try JWSSigner(chain: chain).sign(TestChains.transaction(environment: spelling))
            await #expect(throws: JWSVerificationError(.invalidEnvironment), "\(spelling)") {
                try await verifier.verifyTransaction(token)
            }
        }
    }

    @Test(arguments: [#"["b64"]"#, #"["exp"]"#, "[]", "null"])
    func anyCriticalHeaderIsRefused(critical: String) async throws {
        let chain = try TestChains.chain()
        let x5c = try chain.x5c().map { "\"\($0)\"" }.joined(separator: ",")
        let header = Data(#"{"alg":"ES256","crit":\#(critical),"x5c":[\#(x5c)]}"#.utf8)
        let payload = try JSONEncoder().encode(TestChains.transaction())
        let signingInput = Base64URL.encode(header) + "." + Base64URL.encode(payload)
        let signature = try chain.leafPrivateKey.signature(for: Data(signingInput.utf8))
        let token = signingInput + "." + Base64URL.encode(signature.rawRepresentation)
        await #expect(throws: JWSVerificationError(.unsupportedCriticalHeader)) {
            try await TestChains.verifier(roots: [chain.trustedRoot]).verifyTransaction(token)
        }
    }

    /// Payloads that repeat a key, at the top, nested, or through an escape; each would otherwise verify.
    static let repeatedKeys: [String] = [
        #"{"bundleId":"com.example","environment":"Production","environment":"Sandbox","transactionId":"1"}"#,
        #"{"bundleId":"com.example","environment":"Sandbox","transactionId":"1","transactionId":"2"}"#,
        #"{"bundleId":"com.example","environment":"Sandbox","transactionId":"1","transactionId":"1"}"#,
        #"{"bundleId":"com.example","environment":"Sandbox","transactionI\u0064":"1","transactionId":"2"}"#,
        #"{"bundleId":"com.example","environment":"Sandbox","x":{"a":1,"a":2}}"#,
        #"{"bundleId":"com.example","environment":"Sandbox","x":[{"a":1},{"b":[{"c":1,"c":1}]}]}"#,
    ]

    @Test(arguments: repeatedKeys)
    func payloadThatRepeatsAKeyIsRefused(json: String) async throws {
        let chain = try TestChains.chain()
        let verifier = try TestChains.verifier(roots: [chain.trustedRoot])
        let token = try JWSSigner(chain: chain).sign(payloadBytes: Data(json.utf8))
        await #expect(throws: JWSVerificationError(.malformedPayload)) { try await verifier.verifyTransaction(token) }
        #expect(throws: JWSVerificationError(.malformedPayload)) { try CompactJWS(token) }
    }

    @Test func headerThatRepeatsAKeyIsRefused() async throws {
        let chain = try TestChains.chain()
        let x5c = try chain.x5c().map { "\"\($0)\"" }.joined(separator: ",")
        let header = Data(#"{"alg":"none","alg":"ES256","x5c":[\#(x5c)]}"#.utf8)
        let signingInput =
            Base64URL.encode(header) + "." + Base64URL.encode(try JSONEncoder().encode(TestChains.transaction()))
        let signature = try chain.leafPrivateKey.signature(for: Data(signingInput.utf8))
        #expect(throws: JWSVerificationError(.malformedJWS)) {
            try CompactJWS(signingInput + "." + Base64URL.encode(signature.rawRepresentation))
        }
    }

    /// Distinct keys, escapes, unicode, numbers and nesting that are valid JSON all pass; so do Apple's vectors.
    @Test func wellFormedPayloadsWithDistinctKeysPass() async throws {
        let chain = try TestChains.chain()
        let verifier = try TestChains.verifier(roots: [chain.trustedRoot])
        let json = #"""
             {"bundleId":"com.example","environment":"Sandbox","transactionId":"1","a\"b":"\ud83d\ude00\n",
              "a\\b":[1,-0,0.5,-1.25e-3,2E+10,true,false,null,{},[]],"é":{"e\u0301x":{"k":{"k":{"k":1}}}},
              "nested":[{"k":1},{"k":2}],"empty":""}
            """#
        let token = try JWSSigner(chain: chain).sign(payloadBytes: Data(json.utf8))
        #expect(try await verifier.verifyTransaction(token).transactionID == "1")
        for name in ["testNotification", "transactionInfo", "renewalInfo", "wrongBundleId"] {
            _ = try CompactJWS(try TestResources.signedData(name))
        }
    }

    @Test(arguments: [
        " ", "{", "{\"a\":}", "{\"a\" 1}", "{\"a\":1,}", "[1,]", "{\"a\":01}", "{\"a\":1.}", "{\"a\":tru}",
        "{\"a\":\"\u{01}\"}", "{\"a\":\"\\x\"}", "{\"a\":\"\\ud800\"}", "{} {}", "{\"a\":1}}", "{'a':1}",
        String(repeating: "[", count: 600) + String(repeating: "]", count: 600),
    ])
    func payloadThatIsNotJSONIsRefused(text: String) async throws {
        let chain = try TestChains.chain()
        let token = try JWSSigner(chain: chain).sign(payloadBytes: Data(text.utf8))
        #expect(throws: JWSVerificationError(.malformedPayload)) { try CompactJWS(token) }
    }

    @Test(arguments: [[0xC3, 0x28], [0xFF], [0xED, 0xA0, 0x80]] as [[UInt8]])
    func payloadWithInvalidUTF8IsRefused(bytes: [UInt8]) throws {
        let chain = try TestChains.chain()
        for (prefix, suffix) in [(#"{"x":""#, #""}"#), (#"{""#, #"":1}"#)] {
            let payload = Array(prefix.utf8) + bytes + Array(suffix.utf8)
            let token = try JWSSigner(chain: chain).sign(payloadBytes: Data(payload))
            #expect(throws: JWSVerificationError(.malformedPayload)) { try CompactJWS(token) }
        }
    }

    /// The check never accepts what Foundation's parser refuses, over random mutations of a real payload.
    @Test func uniqueKeyCheckNeverAcceptsWhatFoundationRefuses() throws {
        var random = SeededGenerator(seed: 0x5EED_0C01)
        let chain = try TestChains.chain()
        let signer = JWSSigner(chain: chain)
        let original = Array(try TestResources.model("signedTransaction"))
        var accepted = 0
        for _ in 0..<1500 {
            let mutated = random.mutate(original)
            let token = try signer.sign(payloadBytes: Data(mutated))
            guard (try? CompactJWS(token)) != nil else { continue }
            accepted += 1
            #expect((try? JSONSerialization.jsonObject(with: Data(mutated), options: .fragmentsAllowed)) != nil)
        }
        #expect(accepted > 100)
    }
}
