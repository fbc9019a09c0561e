import AppStore
import AppStoreTestSupport
import Foundation
import SubLedgerCore
import Testing

/// The notification path reads Apple's plain forms without a JSON decoder and decodes each payload once;
/// these tests hold it to reading exactly what the JSON decoder reads, and to refusing what it refused.
@Suite struct NotificationDecodedOnceTests {
    private struct Body: Decodable { var signedPayload: String }

    @Test(arguments: [
        #"{"signedPayload":"aGVhZA.cGF5bG9hZA.c2ln"}"#,
        " \n{ \"signedPayload\" :\t\"aGVhZA.cGF5bG9hZA.c2ln\" }\r\n",
    ])
    func plainBodyGivesTheStringTheDecoderReads(body: String) throws {
        let data = Data(body.utf8)
        let plain = try #require(NotificationBodyV2.plainSignedPayload(data))
        #expect(plain == "aGVhZA.cGF5bG9hZA.c2ln")
        #expect(plain == (try JSONDecoder().decode(Body.self, from: data)).signedPayload)
    }

    @Test(arguments: [
        #"{"signedPayload":"a\/b"}"#,  // an escape
        #"{"signedPayload":"a\u002eb"}"#,
        #"{"signedPayload":"a.b","other":1}"#,  // another member
        #"{"other":1,"signedPayload":"a.b"}"#,
        #"{"signedPayload":"a.b","signedPayload":"c.d"}"#,  // a repeated member
        #"["signedPayload"]"#,
        #"{"signedPayload":"a.b"} x"#,
        #"{"signedPayload":"é"}"#,
        #"{"signedPayload":null}"#,
        #"{"signedPayload":"a.b""#,
        "",
    ])
    func anyOtherBodyIsLeftToTheJSONDecoder(body: String) {
        #expect(NotificationBodyV2.plainSignedPayload(Data(body.utf8)) == nil)
    }

    @Test func bodyWithAnEscapedSignedPayloadStillVerifies() async throws {
        let chain = try TestChains.chain()
        let signer = JWSSigner(chain: chain)
        let decoder = ServerNotificationDecoder(
            verifier: try TestChains.verifier(roots: [chain.trustedRoot]), sharedSecret: nil)
        let token = try signer.sign(ServerNotificationDecoderTests.notification(signer: signer))
        // `\u002e` is a dot: the JSON decoder reads the same token; the plain reader leaves it to it.
        let escaped = token.replacingOccurrences(of: ".", with: "\\u002e")
        let body = Data(#"{"signedPayload":"\#(escaped)"}"#.utf8)
        #expect(NotificationBodyV2.plainSignedPayload(body) == nil)
        #expect(try await decoder.decodeV2(body: body).notification.notificationType == "DID_RENEW")
    }

    @Test func headersWithOrWithoutEscapedSlashesReadTheSameChain() throws {
        let chain = try TestChains.chain()
        let x5c = try chain.x5c()
        let payload = Data(#"{"signedDate":1700000000000}"#.utf8)
        let withSlashes = try JWSSigner(chain: chain).sign(payloadBytes: payload)  // JSONEncoder writes `\/`
        #expect(try CompactJWS(withSlashes).header.certificateChain == x5c)
        let headerJSON = #"{"alg":"ES256","typ":"JWT","x5c":["\#(x5c.joined(separator: "\",\""))"]}"#
        let plain = "\(Base64URL.encode(Data(headerJSON.utf8))).\(Base64URL.encode(payload)).c2ln"
        #expect(!headerJSON.contains("\\"))
        let header = try CompactJWS(plain).header
        #expect(header.certificateChain == x5c)
        #expect(header.algorithm == "ES256")
        #expect(header.type == "JWT")
        #expect(header.keyID == nil)
    }

    @Test func headersOutsideThePlainFormAreReadByTheDecoder() throws {
        let payload = Base64URL.encode(Data("{}".utf8))
        func header(_ json: String) throws -> JWSHeader {
            try CompactJWS("\(Base64URL.encode(Data(json.utf8))).\(payload).c2ln").header
        }
        #expect(try header(#"{"alg":"\u0045S256","x5c":["a\nb"]}"#).algorithm == "ES256")
        #expect(try header(#"{"alg":"\u0045S256","x5c":["a\nb"]}"#).certificateChain == ["a\nb"])
        #expect(
            try header(#"{"alg":null,"x5c":null,"kid":"k"}"#)
                == JWSHeader(algorithm: nil, certificateChain: nil, keyID: "k"))
        #expect(try header(#"{"alg":"ES256","crit":null}"#).critical == [])
        #expect(throws: JWSVerificationError(.malformedJWS)) { try header(#"{"alg":1}"#) }
        #expect(throws: JWSVerificationError(.malformedJWS)) { try header(#"{"x5c":["a",2]}"#) }
        #expect(throws: JWSVerificationError(.malformedJWS)) { try header(#"["alg"]"#) }
    }

    @Test func notificationDecodedBeforeVerificationIsVerifiedAndCheckedLikeAnyOther() async throws {
        let chain = try TestChains.chain()
        let signer = JWSSigner(chain: chain)
        let verifier = try TestChains.verifier(roots: [chain.trustedRoot])
        let token = try signer.sign(ServerNotificationDecoderTests.notification(signer: signer))
        let unverified = try UnverifiedNotificationV2(CompactJWS(token))
        #expect(unverified.claimedBundleID == "com.example")
        #expect(unverified.claimedEnvironment == "Sandbox")
        #expect(try await verifier.verifyNotification(unverified) == (try await verifier.verifyNotification(token)))

        // Another chain's signature over the same payload: refused although the payload decoded.
        let forged = try JWSSigner(chain: TestChains.chain()).sign(
            ServerNotificationDecoderTests.notification(signer: signer))
        await #expect(throws: JWSVerificationError(.invalidCertificateChain)) {
            try await verifier.verifyNotification(UnverifiedNotificationV2(CompactJWS(forged)))
        }
        // A signature that does not cover the payload.
        let parts = token.split(separator: ".")
        let otherSignature = try signer.sign(payloadBytes: Data("{}".utf8)).split(separator: ".")[2]
        await #expect(throws: JWSVerificationError(.invalidSignature)) {
            try await verifier.verifyNotification(
                UnverifiedNotificationV2(CompactJWS("\(parts[0]).\(parts[1]).\(otherSignature)")))
        }
        // Another app's notification, properly signed.
        var otherApp = try ServerNotificationDecoderTests.notification(signer: signer)
        otherApp.data?.bundleID = "com.example.other"
        await #expect(throws: JWSVerificationError(.invalidAppIdentifier)) {
            try await verifier.verifyNotification(UnverifiedNotificationV2(CompactJWS(signer.sign(otherApp))))
        }
        // Through the decoder: the nested items are verified too.
        let decoder = ServerNotificationDecoder(verifier: verifier, sharedSecret: nil)
        let verified = try await decoder.decodeV2(unverified)
        #expect(verified.notification.transaction?.transactionID == "2000000000000001")
        #expect(verified.notification.renewalInfo?.willAutoRenew == true)
    }

    @Test func claimsAreReadAsBeforeFromTheTopLevelFirst() throws {
        let payload =
            #"{"bundleId":"top","environment":"Production","summary":{"bundleId":"s","environment":"Sandbox"}}"#
        let token = "\(Base64URL.encode(Data(#"{"alg":"ES256"}"#.utf8))).\(Base64URL.encode(Data(payload.utf8))).c2ln"
        let unverified = try UnverifiedNotificationV2(CompactJWS(token))
        #expect(unverified.claimedBundleID == "top")
        #expect(unverified.claimedEnvironment == "Production")
        let notString = #"{"data":{"bundleId":7}}"#
        let refused =
            "\(Base64URL.encode(Data(#"{"alg":"ES256"}"#.utf8))).\(Base64URL.encode(Data(notString.utf8))).c2ln"
        #expect(throws: JWSVerificationError(.malformedPayload)) { try UnverifiedNotificationV2(CompactJWS(refused)) }
    }
}
