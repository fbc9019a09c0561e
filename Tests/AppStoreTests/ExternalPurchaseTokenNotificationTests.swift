import AppStore
import AppStoreTestSupport
import Foundation
import SubLedgerCore
import Testing

/// `EXTERNAL_PURCHASE_TOKEN` notifications through the V2 decoder: the payload's `externalPurchaseToken` is
/// verified as the app's and handed on checked; a token missing a field or with an id Apple never makes refuses
/// the notification as unmappable.
@Suite struct ExternalPurchaseTokenNotificationTests {
    static func payload(_ token: ExternalPurchaseToken?) -> ResponseBodyV2DecodedPayload {
        ResponseBodyV2DecodedPayload(
            rawNotificationType: "EXTERNAL_PURCHASE_TOKEN", rawSubtype: "UNREPORTED",
            notificationUUID: "002e14d5-51f5-4503-b5a8-c3a1af68eb20", version: "2.0", signedDate: 1_700_000_100_000,
            externalPurchaseToken: token)
    }

    static func token(
        id: String? = "SANDBOX_b2158121-7af9-49d4-9561-1f588205523e", created: Int64? = 1_700_000_050_000,
        type: String? = "SERVICES"
    ) -> ExternalPurchaseToken {
        ExternalPurchaseToken(
            externalPurchaseID: id, tokenCreationDate: created, appAppleID: 1234, bundleID: "com.example",
            rawTokenType: type)
    }

    @Test func theTokenOfAnUnreportedNotificationIsHandedOnChecked() async throws {
        let chain = try TestChains.chain()
        let signer = JWSSigner(chain: chain)
        let decoder = ServerNotificationDecoder(
            verifier: try TestChains.verifier(roots: [chain.trustedRoot]), sharedSecret: nil)
        let verified = try await decoder.decodeV2(signedPayload: try signer.sign(Self.payload(Self.token())))
        #expect(verified.notification.notificationType == "EXTERNAL_PURCHASE_TOKEN")
        #expect(verified.notification.subtype == "UNREPORTED")
        #expect(verified.notification.appAppleID == 1234)
        #expect(verified.notification.transaction == nil)
        let token = try #require(verified.externalPurchaseToken)
        #expect(token.externalPurchaseID == "SANDBOX_b2158121-7af9-49d4-9561-1f588205523e")
        #expect(token.createdAt == Instant(millisecondsSince1970: 1_700_000_050_000))
        #expect(token.tokenType == .services)
        #expect(token.environment == .sandbox)
        // A type Apple adds later stays raw in the payload and untyped here.
        let later = try await decoder.decodeV2(signedPayload: try signer.sign(Self.payload(Self.token(type: "NEW"))))
        #expect(later.externalPurchaseToken?.tokenType == nil)
        #expect(later.payload.externalPurchaseToken?.rawTokenType == "NEW")
    }

    @Test func aTokenMissingAFieldOrWithAnIdAppleNeverMakesIsUnmappable() async throws {
        let chain = try TestChains.chain()
        let signer = JWSSigner(chain: chain)
        let decoder = ServerNotificationDecoder(
            verifier: try TestChains.verifier(roots: [chain.trustedRoot]), sharedSecret: nil)
        let cases: [(ExternalPurchaseToken, PayloadMappingError)] = [
            (Self.token(created: nil), .init(.missingField, field: "tokenCreationDate")),
            (Self.token(id: "SANDBOX_has space"), .init(.invalidIdentifier, field: "externalPurchaseId")),
            (
                Self.token(id: "SANDBOX_" + String(repeating: "a", count: 121)),
                .init(.invalidIdentifier, field: "externalPurchaseId")
            ),
        ]
        for (token, mappingError) in cases {
            await #expect(throws: NotificationDecodingError(.unmappable, mappingError: mappingError)) {
                _ = try await decoder.decodeV2(signedPayload: try signer.sign(Self.payload(token)))
            }
        }
        // Another app's token, or a date no Apple date can be, fails verification before any of this.
        var other = Self.token()
        other.bundleID = "com.other"
        for refused in [other, Self.token(created: -5)] {
            await #expect(throws: NotificationDecodingError.self) {
                _ = try await decoder.decodeV2(signedPayload: try signer.sign(Self.payload(refused)))
            }
        }
    }
}
