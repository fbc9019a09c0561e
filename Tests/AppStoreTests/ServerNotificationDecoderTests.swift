import AppStore
import AppStoreTestSupport
import Crypto
import Foundation
import SubLedgerCore
import Testing

@Suite struct ServerNotificationDecoderTests {
    static func notification(
        signer: JWSSigner,
        type: String = "DID_RENEW",
        subtype: String? = nil,
        transactionEnvironment: String = "Sandbox"
    ) throws -> ResponseBodyV2DecodedPayload {
        ResponseBodyV2DecodedPayload(
            rawNotificationType: type,
            rawSubtype: subtype,
            notificationUUID: "6f1c8b8e-6d2b-4d0b-9a55-2f1e8c7d0001",
            data: NotificationData(
                rawEnvironment: "Sandbox",
                appAppleID: 1234,
                bundleID: "com.example",
                bundleVersion: "42",
                signedTransactionInfo: try signer.sign(TestChains.transaction(environment: transactionEnvironment)),
                signedRenewalInfo: try signer.sign(TestChains.renewal()),
                rawStatus: 1
            ),
            version: "2.0",
            signedDate: 1_700_000_100_000
        )
    }

    @Test func v2BodyIsVerifiedWithNestedItemsAndMappedToTheCore() async throws {
        let chain = try TestChains.chain()
        let signer = JWSSigner(chain: chain)
        let decoder = ServerNotificationDecoder(
            verifier: try TestChains.verifier(roots: [chain.trustedRoot]), sharedSecret: nil)
        let body = try JSONEncoder().encode([
            "signedPayload": try signer.sign(Self.notification(signer: signer, subtype: "BILLING_RECOVERY"))
        ])
        let verified = try await decoder.decodeV2(body: body)
        #expect(verified.payload.notificationType == .didRenew)
        #expect(verified.payload.subtype == .billingRecovery)
        let notification = verified.notification
        #expect(notification.version == .v2)
        #expect(notification.notificationID == "6f1c8b8e-6d2b-4d0b-9a55-2f1e8c7d0001")
        #expect(notification.notificationType == "DID_RENEW")
        #expect(notification.subtype == "BILLING_RECOVERY")
        #expect(notification.bundleID == "com.example")
        #expect(notification.appAppleID == 1234)
        #expect(notification.environment == .sandbox)
        #expect(notification.signedDate == Instant(millisecondsSince1970: 1_700_000_100_000))
        #expect(notification.transaction?.source == .notificationV2)
        #expect(notification.transaction?.transactionID == "2000000000000001")
        #expect(notification.renewalInfo?.willAutoRenew == true)
        #expect(notification.renewalInfo?.observedAt == Instant(millisecondsSince1970: 1_700_000_000_000))
        #expect(notification.receipt == nil)
    }

    @Test func aConsumptionRequestsReasonIsKeptRawAndAHostileOneRefusesThePayload() async throws {
        let chain = try TestChains.chain()
        let signer = JWSSigner(chain: chain)
        let decoder = ServerNotificationDecoder(
            verifier: try TestChains.verifier(roots: [chain.trustedRoot]), sharedSecret: nil)
        func payload(_ reason: String?) throws -> String {
            var notification = try Self.notification(signer: signer, type: "CONSUMPTION_REQUEST")
            notification.data?.rawConsumptionRequestReason = reason
            return try signer.sign(notification)
        }
        #expect(try await decoder.decodeV2(signedPayload: payload(nil)).notification.consumptionRequestReason == nil)
        for reason in ["UNINTENDED_PURCHASE", "OTHER", "A_REASON_APPLE_ADDS_LATER"] {
            let notification = try await decoder.decodeV2(signedPayload: payload(reason)).notification
            #expect(notification.consumptionRequestReason == reason)
        }
        for hostile in ["", "other", "LEGAL\u{0}", String(repeating: "X", count: 65), "FULFILLMENT ISSUE"] {
            await #expect(
                throws: NotificationDecodingError(
                    .unmappable, mappingError: .init(.valueOutOfRange, field: "consumptionRequestReason"))
            ) {
                _ = try await decoder.decodeV2(signedPayload: payload(hostile))
            }
        }
    }

    @Test func unknownNotificationTypeIsKeptRaw() async throws {
        let chain = try TestChains.chain()
        let signer = JWSSigner(chain: chain)
        let decoder = ServerNotificationDecoder(
            verifier: try TestChains.verifier(roots: [chain.trustedRoot]), sharedSecret: nil)
        let verified = try await decoder.decodeV2(
            signedPayload: signer.sign(
                Self.notification(signer: signer, type: "BRAND_NEW_EVENT", subtype: "NEW_SUBTYPE"))
        )
        #expect(verified.payload.notificationType == nil)
        #expect(verified.notification.notificationType == "BRAND_NEW_EVENT")
        #expect(verified.notification.subtype == "NEW_SUBTYPE")
    }

    @Test func nestedTransactionFromAnotherEnvironmentFailsTheNotification() async throws {
        let chain = try TestChains.chain()
        let signer = JWSSigner(chain: chain)
        let decoder = ServerNotificationDecoder(
            verifier: try TestChains.verifier(roots: [chain.trustedRoot]), sharedSecret: nil)
        let token = try signer.sign(Self.notification(signer: signer, transactionEnvironment: "Production"))
        await #expect(
            throws: NotificationDecodingError(
                .verificationFailed, verificationError: JWSVerificationError(.invalidEnvironment))
        ) {
            try await decoder.decodeV2(signedPayload: token)
        }
    }

    @Test func nestedTransactionSignedByAnotherChainFailsTheNotification() async throws {
        let chain = try TestChains.chain()
        let stranger = try TestChains.chain()
        var payload = try Self.notification(signer: JWSSigner(chain: chain))
        payload.data?.signedTransactionInfo = try JWSSigner(chain: stranger).sign(TestChains.transaction())
        let decoder = ServerNotificationDecoder(
            verifier: try TestChains.verifier(roots: [chain.trustedRoot]), sharedSecret: nil)
        do {
            _ = try await decoder.decodeV2(signedPayload: JWSSigner(chain: chain).sign(payload))
            Issue.record("expected a verification failure")
        } catch let error as NotificationDecodingError {
            #expect(error.code == .verificationFailed)
            #expect(error.verificationError?.code == .invalidCertificateChain)
        }
    }

    @Test func appleTestNotificationVectorMapsToTheCore() async throws {
        let decoder = ServerNotificationDecoder(verifier: try TestResources.vectorVerifier(), sharedSecret: nil)
        let verified = try await decoder.decodeV2(signedPayload: TestResources.signedData("testNotification"))
        #expect(verified.notification.notificationType == "TEST")
        #expect(verified.notification.notificationID == "9ad56bd2-0bc6-42e0-af24-fd996d87a1e6")
        #expect(verified.notification.transaction == nil)
    }

    @Test func v2BodyThatIsNotJSONIsMalformed() async throws {
        let decoder = ServerNotificationDecoder(verifier: try TestResources.vectorVerifier(), sharedSecret: nil)
        await #expect(throws: NotificationDecodingError(.malformedBody)) {
            try await decoder.decodeV2(body: Data("<html/>".utf8))
        }
    }

    // MARK: V1

    static let v1Body = #"""
        {
          "notification_type": "DID_RENEW",
          "password": "app-shared-secret",
          "environment": "PROD",
          "auto_renew_status": "true",
          "auto_renew_product_id": "com.example.monthly",
          "bid": "com.example",
          "bvrs": "42",
          "unified_receipt": {
            "status": 0,
            "environment": "Production",
            "latest_receipt": "BASE64",
            "latest_receipt_info": [
              {"product_id": "com.example.monthly", "transaction_id": "5", "original_transaction_id": "1",
               "purchase_date_ms": "1700000000000", "expires_date_ms": "1702592000000", "quantity": "1"}
            ],
            "pending_renewal_info": [
              {"product_id": "com.example.monthly", "original_transaction_id": "1", "auto_renew_status": "1"}
            ]
          }
        }
        """#

    static func productionDecoder(secret: String? = "app-shared-secret") throws -> ServerNotificationDecoder {
        let chain = try TestChains.chain()
        return ServerNotificationDecoder(
            verifier: try TestChains.verifier(roots: [chain.trustedRoot], environment: .production),
            sharedSecret: secret
        )
    }

    @Test func v1BodyWithTheRightPasswordMapsToTheCore() throws {
        let received = Instant(millisecondsSince1970: 1_700_000_500_000)
        let verified = try Self.productionDecoder().decodeV1(body: Data(Self.v1Body.utf8), receivedAt: received)
        let notification = verified.notification
        #expect(notification.version == .v1)
        #expect(notification.notificationType == "DID_RENEW")
        #expect(notification.environment == .production)
        #expect(notification.bundleID == "com.example")
        #expect(notification.signedDate == received)
        let expectedID = SHA256.hash(data: Data(Self.v1Body.utf8)).map { String(format: "%02x", $0) }.joined()
        #expect(notification.notificationID == expectedID)
        #expect(notification.notificationID.count == 64)
        let receipt = try #require(notification.receipt)
        #expect(receipt.transactions.map(\.transactionID) == ["5"])
        #expect(receipt.transactions[0].source == .notificationV1)
        #expect(receipt.renewalInfo.first?.observedAt == received)
        #expect(receipt.latestReceipt == "BASE64")
        #expect(receipt.applicationVersion == "42")
        let reencoded = String(decoding: try JSONEncoder().encode(verified.payload), as: UTF8.self)
        #expect(!reencoded.contains("app-shared-secret"))
    }

    @Test func v1NotificationIDIsStableForTheSameBody() throws {
        let decoder = try Self.productionDecoder()
        let first = try decoder.decodeV1(body: Data(Self.v1Body.utf8)).notification.notificationID
        let second = try decoder.decodeV1(body: Data(Self.v1Body.utf8)).notification.notificationID
        #expect(first == second)
    }

    @Test(arguments: ["wrong-secret", "app-shared-secreT", "app-shared-secret ", ""])
    func v1WrongPasswordIsRejected(secret: String) throws {
        let decoder = try Self.productionDecoder(secret: secret.isEmpty ? "x" : secret)
        #expect(throws: NotificationDecodingError(.wrongPassword)) {
            try decoder.decodeV1(body: Data(Self.v1Body.utf8))
        }
    }

    @Test func v1WithoutConfiguredSecretIsRejected() throws {
        #expect(throws: NotificationDecodingError(.missingSharedSecret)) {
            try Self.productionDecoder(secret: nil).decodeV1(body: Data(Self.v1Body.utf8))
        }
    }

    @Test func v1ForAnotherAppOrEnvironmentIsRejected() throws {
        let decoder = try Self.productionDecoder()
        #expect(throws: NotificationDecodingError(.invalidAppIdentifier)) {
            try decoder.decodeV1(
                body: Data(Self.v1Body.replacingOccurrences(of: "\"com.example\"", with: "\"com.other\"").utf8))
        }
        #expect(throws: NotificationDecodingError(.invalidEnvironment)) {
            try decoder.decodeV1(body: Data(Self.v1Body.replacingOccurrences(of: "\"PROD\"", with: "\"Sandbox\"").utf8))
        }
    }
}
