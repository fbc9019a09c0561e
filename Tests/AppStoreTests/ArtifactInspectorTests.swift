import AppStore
import AppStoreTestSupport
import Foundation
import SubLedgerCore
import Testing

@Suite struct ArtifactInspectorTests {
    static func inspector(
        bundleID: String? = "com.example",
        environment: StoreEnvironment = .sandbox,
        roots: [TrustedRoot]? = nil,
        sharedSecret: String? = nil
    ) throws -> ArtifactInspector {
        ArtifactInspector(
            configuration: .init(
                roots: try roots ?? [TestResources.testRoot()],
                bundleID: bundleID,
                appAppleID: 1234,
                environment: environment,
                sharedSecret: sharedSecret
            ),
            now: { TestChains.now }
        )
    }

    func json(_ report: InspectionReport) throws -> [String: Any] {
        try #require(try JSONSerialization.jsonObject(with: JSONEncoder().encode(report)) as? [String: Any])
    }

    /// An iOS 6 style transaction receipt is recognized and its id read offline.
    @Test func legacyTransactionReceiptsShowTheirTransactionID() async throws {
        let report = try await Self.inspector().inspect(Data(try TestResources.signedData("legacyTransaction").utf8))
        #expect(report.kind == .transactionReceipt)
        #expect(!report.verified)
        let fields = try json(report)["fields"] as? [String: Any]
        #expect(fields?["transaction_id"] as? String == "33993399")
    }

    @Test(arguments: [
        ("testNotification", ArtifactKind.notificationV2), ("transactionInfo", .signedTransaction),
        ("renewalInfo", .signedRenewalInfo),
    ])
    func appleVectorsAreDetectedAndVerified(name: String, kind: ArtifactKind) async throws {
        let report = try await Self.inspector().inspect(Data(try TestResources.signedData(name).utf8))
        #expect(report.kind == kind)
        #expect(report.verified)
        #expect(report.reason == nil)
        #expect(report.checks.contains("appIdentity"))
        let fields = try json(report)["fields"] as? [String: Any]
        #expect(
            fields?["environment"] as? String == "Sandbox"
                || (fields?["data"] as? [String: Any])?["environment"] as? String == "Sandbox")
    }

    @Test func notificationBodyWrapperIsDetected() async throws {
        let body = try JSONEncoder().encode(["signedPayload": TestResources.signedData("testNotification")])
        let report = try await Self.inspector().inspect(body)
        #expect(report.kind == .notificationV2)
        #expect(report.verified)
        let core = try json(report)["core"] as? [String: Any]
        #expect(core?["notificationID"] as? String == "9ad56bd2-0bc6-42e0-af24-fd996d87a1e6")
    }

    @Test func wrongBundleVectorReportsTheTypedReason() async throws {
        let report = try await Self.inspector().inspect(Data(try TestResources.signedData("wrongBundleId").utf8))
        #expect(!report.verified)
        #expect(report.reason == "JWSVerificationError.invalidAppIdentifier")
    }

    @Test func withoutBundleIDOnlyAuthenticityIsChecked() async throws {
        let report = try await Self.inspector(bundleID: nil).inspect(
            Data(try TestResources.signedData("wrongBundleId").utf8))
        #expect(report.verified)
        #expect(!report.checks.contains("appIdentity"))
    }

    @Test func defaultAppleRootRejectsTestVectors() async throws {
        let inspector = try Self.inspector(roots: [TrustedRoot.appleRootCAG3()])
        let report = await inspector.inspect(Data(try TestResources.signedData("transactionInfo").utf8))
        #expect(!report.verified)
        #expect(report.reason == "JWSVerificationError.invalidCertificateChain")
    }

    @Test func tamperedSignatureIsReported() async throws {
        let token = AppleVectorRejectionTests.flipping(
            try TestResources.signedData("transactionInfo"), segment: 2, byte: 0)
        let report = try await Self.inspector().inspect(Data(token.utf8))
        #expect(!report.verified)
        #expect(report.reason == "JWSVerificationError.invalidSignature")
    }

    @Test func v1NotificationVerifiesOnlyWithTheSharedSecret() async throws {
        let body = Data(ServerNotificationDecoderTests.v1Body.utf8)
        let unverified = try await Self.inspector(environment: .production).inspect(body)
        #expect(unverified.kind == .notificationV1)
        #expect(!unverified.verified)
        #expect(unverified.reason == "ArtifactInspector.sharedSecretAndBundleIDRequired")
        let verified = try await Self.inspector(environment: .production, sharedSecret: "app-shared-secret").inspect(
            body)
        #expect(verified.verified)
        let wrong = try await Self.inspector(environment: .production, sharedSecret: "nope").inspect(body)
        #expect(wrong.reason == "NotificationDecodingError.wrongPassword")
        let printed = String(decoding: try JSONEncoder().encode(verified), as: UTF8.self)
        #expect(!printed.contains("app-shared-secret"))
    }

    @Test func appReceiptIsDecodedButNeverVerified() async throws {
        let base64 = Data(try AppReceiptFixture.sampleReceipt()).base64EncodedString()
        let report = try await Self.inspector().inspect(Data(base64.utf8))
        #expect(report.kind == .appReceipt)
        #expect(!report.verified)
        #expect(report.reason == "ArtifactInspector.receiptSignatureNotChecked")
        let fields = try json(report)["fields"] as? [String: Any]
        #expect(fields?["transactionIDs"] as? [String] == ["1000000000000001", "1000000000000002"])
    }

    @Test(arguments: ["", "hello world", "{\"foo\": 1}", "AAAA"])
    func unknownInputIsNotVerified(text: String) async throws {
        let report = try await Self.inspector().inspect(Data(text.utf8))
        #expect(!report.verified)
        #expect(report.reason != nil)
    }
}
