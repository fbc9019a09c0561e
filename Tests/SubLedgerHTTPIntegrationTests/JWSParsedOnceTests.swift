import AppStore
import Foundation
import HTTPTypes
import NIOCore
import SubLedgerCore
import Testing

@testable import AppStoreStore
@testable import SubLedgerHTTP
@testable import SubLedgerUseCases

/// The service parses each signed token once: the claims that pick the verifier come from that parse, and
/// the verifier is handed the same parse. These tests pin what a client sees so that reuse changed nothing.
@Suite struct JWSParsedOnceTests {
    private static func token(payload: String, header: String = #"{"alg":"ES256"}"#) -> String {
        "\(Base64URL.encode(Data(header.utf8))).\(Base64URL.encode(Data(payload.utf8))).c2ln"
    }

    @Test func claimsComeFromTheTopLevelOrTheNotificationsInnerObject() throws {
        let transaction = try #require(
            AppleGateway.claimedJWS(Self.token(payload: #"{"bundleId":"com.example.one","environment":"Sandbox"}"#)))
        #expect(transaction.bundleID == "com.example.one")
        #expect(transaction.environment == .sandbox)
        #expect(transaction.jws.header.algorithm == "ES256")

        for inner in ["data", "summary", "appData", "externalPurchaseToken"] {
            let claims = #"{"bundleId":"com.example.two","environment":"Production"}"#
            let payload = #"{"notificationType":"TEST","\#(inner)":\#(claims)}"#
            let notification = try #require(AppleGateway.claimedJWS(Self.token(payload: payload)))
            #expect(notification.bundleID == "com.example.two", "\(inner)")
            #expect(notification.environment == .production, "\(inner)")
        }
    }

    @Test func aTokenThatIsNotACompactJWSHasNoParseAndAPayloadThatIsNoObjectHasNoClaims() throws {
        #expect(AppleGateway.claimedJWS("a.b") == nil)
        #expect(AppleGateway.claimedJWS("a.b.c") == nil)
        let repeatedKey = #"{"environment":"Sandbox","environment":"Sandbox"}"#
        #expect(AppleGateway.claimedJWS(Self.token(payload: repeatedKey)) == nil)
        let array = try #require(AppleGateway.claimedJWS(Self.token(payload: #"["Sandbox"]"#)))
        #expect(array.bundleID == nil && array.environment == nil)
        let unknown = try #require(AppleGateway.claimedJWS(Self.token(payload: #"{"environment":"Staging"}"#)))
        #expect(unknown.environment == nil)
    }

    /// The parse handed to the verifier has not had its header checked: the verifier still refuses `crit`,
    /// with the same code and message as when it parsed the text itself.
    @Test func aValidlySignedTokenWithACriticalHeaderIsStillRefused() async throws {
        try await ServiceHarness.run { harness, client in
            let chain = try harness.signer.chain.x5c()
            let critical = JWSHeader(algorithm: "ES256", certificateChain: chain, type: "JWT", critical: ["exp"])
            let plain = try harness.signedTransaction(id: "5000", purchasedOnDay: 0, expiresOnDay: 30)
            let payload = try #require(Base64URL.decode(String(plain.split(separator: ".")[1])))
            let signed = try harness.signer.sign(payloadBytes: payload, header: critical)
            let transaction = try await client.call(
                .post, "/v1/transactions", key: harness.keyOne,
                json: ["account_id": "alice", "signed_transaction": signed])
            #expect(transaction.status == .unprocessableContent)
            #expect(transaction.json.errorCode == "invalid_signed_transaction")
            #expect(
                transaction.json.errorMessage
                    == "the signed transaction did not verify: JWSVerificationError(unsupportedCriticalHeader)")

            let body = try harness.notificationBody(type: "TEST", transaction: nil, onDay: 0)
            let signedPayload = try #require(
                (try JSONSerialization.jsonObject(with: Data(buffer: body)) as? [String: String])?["signedPayload"])
            let notificationPayload = try #require(Base64URL.decode(String(signedPayload.split(separator: ".")[1])))
            let criticalBody = try JSONEncoder().encode([
                "signedPayload": try harness.signer.sign(payloadBytes: notificationPayload, header: critical)
            ])
            let notification = try await client.call(
                .post, "/v1/notifications/appstore", key: nil, raw: ByteBuffer(bytes: criticalBody))
            #expect(notification.status == .unauthorized)
            #expect(notification.json.errorCode == "invalid_signature")
        }
    }
}
