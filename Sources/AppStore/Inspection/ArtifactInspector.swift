import Foundation
import SubLedgerCore

/// Identifies one Apple artifact, verifies what can be verified offline, and reports the decoded fields.
///
/// JWS artifacts are checked for chain and signature against `roots`; when a bundle id is configured, the
/// app identity and environment are checked too (`appIdentity` in the report's checks). V1 notifications
/// verify only against a shared secret. App receipts are decoded but never reported as verified: their
/// PKCS#7 signature is not checked by this module.
public struct ArtifactInspector: Sendable {
    /// What to verify against.
    public struct Configuration: Sendable {
        /// Roots JWS chains must end at. Default: Apple Root CA - G3.
        public var roots: [TrustedRoot]
        /// The expected bundle id; `nil` checks authenticity only.
        public var bundleID: String?
        /// The expected Apple app id (required with a production bundle id).
        public var appAppleID: Int64?
        /// The expected environment. Default: production.
        public var environment: StoreEnvironment
        /// The shared secret V1 notifications must carry; `nil` leaves V1 unverified.
        public var sharedSecret: String?
        /// When certificates must have been valid. Default: at the payload's `signedDate`.
        public var validationTime: CertificateValidationTime

        /// Creates a configuration.
        public init(
            roots: [TrustedRoot],
            bundleID: String? = nil,
            appAppleID: Int64? = nil,
            environment: StoreEnvironment = .production,
            sharedSecret: String? = nil,
            validationTime: CertificateValidationTime = .signedDate
        ) {
            self.roots = roots
            self.bundleID = bundleID
            self.appAppleID = appAppleID
            self.environment = environment
            self.sharedSecret = sharedSecret
            self.validationTime = validationTime
        }
    }

    /// The largest artifact accepted.
    public static let maximumInputBytes = 16 * 1024 * 1024

    private let configuration: Configuration
    private let now: @Sendable () -> Instant

    /// Creates an inspector.
    public init(configuration: Configuration, now: @escaping @Sendable () -> Instant = { Instant.systemNow() }) {
        self.configuration = configuration
        self.now = now
    }

    /// Inspects one artifact's bytes.
    public func inspect(_ input: Data) async -> InspectionReport {
        guard input.count <= Self.maximumInputBytes else {
            return InspectionReport(kind: .unrecognized, verified: false, reason: "ArtifactInspector.inputTooLarge")
        }
        let text = String(decoding: input, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if text.hasPrefix("{") {
            return await inspectJSON(Data(text.utf8))
        }
        if text.split(separator: ".", omittingEmptySubsequences: false).count == 3 {
            return await inspectJWS(text, kind: Self.jwsKind(text))
        }
        if Data(base64Encoded: text, options: .ignoreUnknownCharacters) != nil {
            return inspectAppReceipt(text)
        }
        return InspectionReport(kind: .unrecognized, verified: false, reason: "ArtifactInspector.unrecognizedArtifact")
    }

    // MARK: Detection

    private func inspectJSON(_ data: Data) async -> InspectionReport {
        let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any]
        if let signedPayload = object?["signedPayload"] as? String {
            return await inspectJWS(signedPayload, kind: .notificationV2)
        }
        if object?["notification_type"] != nil || object?["unified_receipt"] != nil {
            return inspectNotificationV1(data)
        }
        return InspectionReport(kind: .unrecognized, verified: false, reason: "ArtifactInspector.unrecognizedArtifact")
    }

    /// Guesses a JWS's kind from its (unverified) payload keys; the guess only picks the decoder.
    static func jwsKind(_ token: String) -> ArtifactKind {
        let segments = token.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3, let payload = Base64URL.decode(segments[1]),
            let object = (try? JSONSerialization.jsonObject(with: payload)) as? [String: Any]
        else {
            return .signedTransaction
        }
        let keys = Set(object.keys)
        if !keys.isDisjoint(with: [
            "notificationType", "notificationUUID", "data", "summary", "externalPurchaseToken", "appData",
        ]) {
            return .notificationV2
        }
        if keys.contains("receiptType")
            || (keys.contains("appTransactionId") && keys.contains("originalApplicationVersion"))
        {
            return .signedAppTransaction
        }
        if keys.contains("transactionId") || keys.contains("bundleId") {
            return .signedTransaction
        }
        return .signedRenewalInfo
    }

    // MARK: JWS

    private func inspectJWS(_ token: String, kind: ArtifactKind) async -> InspectionReport {
        let unverifiedFields = Self.decodeUnverified(token, kind: kind)
        if !configuration.environment.isSignedByTheAppStore {
            return await inspectUnsignedEnvironmentJWS(token, kind: kind, fields: unverifiedFields)
        }
        let signatureVerifier: JWSSignatureVerifier
        do {
            signatureVerifier = try JWSSignatureVerifier(
                configuration: .init(roots: configuration.roots, validationTime: configuration.validationTime),
                now: now
            )
        } catch {
            return failure(kind, error, checks: [], fields: unverifiedFields)
        }
        let signingDate: PayloadSigningDate = kind == .signedAppTransaction ? .receiptCreationDate : .signedDate
        do {
            _ = try await signatureVerifier.verify(token, signingDate: signingDate)
        } catch {
            return failure(kind, error, checks: ["structure", "chain", "signature"], fields: unverifiedFields)
        }
        guard let bundleID = configuration.bundleID else {
            return InspectionReport(
                kind: kind,
                verified: true,
                checks: ["structure", "chain", "signature"],
                fields: unverifiedFields
            )
        }
        return await inspectPayload(
            token, kind: kind, bundleID: bundleID,
            checks: ["structure", "chain", "signature", "appIdentity", "environment"], fields: unverifiedFields)
    }

    /// Xcode and local-testing data is not signed by the App Store: as Apple's library does, only the
    /// structure, the app and the exact environment are checked, and the report's checks say so (no
    /// `chain`, no `signature`). A bundle id is required, so that "verified" always means something.
    private func inspectUnsignedEnvironmentJWS(
        _ token: String, kind: ArtifactKind, fields: (any Encodable & Sendable)?
    ) async -> InspectionReport {
        guard let bundleID = configuration.bundleID else {
            return InspectionReport(
                kind: kind, verified: false, reason: "ArtifactInspector.bundleIDRequiredForUnsignedEnvironment",
                checks: [], fields: fields)
        }
        return await inspectPayload(
            token, kind: kind, bundleID: bundleID, checks: ["structure", "appIdentity", "environment"], fields: fields)
    }

    private func inspectPayload(
        _ token: String, kind: ArtifactKind, bundleID: String, checks: [String],
        fields unverifiedFields: (any Encodable & Sendable)?
    ) async -> InspectionReport {
        let verifier: SignedDataVerifier
        do {
            verifier = try SignedDataVerifier(
                configuration: .init(
                    bundleID: bundleID,
                    appAppleID: configuration.appAppleID,
                    environment: configuration.environment,
                    signature: .init(roots: configuration.roots, validationTime: configuration.validationTime)
                ),
                now: now
            )
        } catch {
            return failure(kind, error, checks: checks, fields: unverifiedFields)
        }
        do {
            switch kind {
            case .signedTransaction:
                let payload = try await verifier.verifyTransaction(token)
                return InspectionReport(
                    kind: kind, verified: true, checks: checks, fields: payload,
                    core: try? payload.coreTransaction(source: .signedTransaction)
                )
            case .signedRenewalInfo:
                let payload = try await verifier.verifyRenewalInfo(token)
                return InspectionReport(
                    kind: kind, verified: true, checks: checks, fields: payload, core: try? payload.coreRenewalInfo()
                )
            case .signedAppTransaction:
                let payload = try await verifier.verifyAppTransaction(token)
                return InspectionReport(kind: kind, verified: true, checks: checks, fields: payload)
            default:
                let decoder = ServerNotificationDecoder(verifier: verifier, sharedSecret: nil, now: now)
                let verified = try await decoder.decodeV2(signedPayload: token)
                return InspectionReport(
                    kind: .notificationV2, verified: true, checks: checks + ["nestedSignedData"],
                    fields: verified.payload, core: verified.notification
                )
            }
        } catch {
            return failure(kind, error, checks: checks, fields: unverifiedFields)
        }
    }

    private static func decodeUnverified(_ token: String, kind: ArtifactKind) -> (any Encodable & Sendable)? {
        let segments = token.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3, let payload = Base64URL.decode(segments[1]) else { return nil }
        let decoder = JSONDecoder()
        switch kind {
        case .signedTransaction: return try? decoder.decode(JWSTransactionDecodedPayload.self, from: payload)
        case .signedRenewalInfo: return try? decoder.decode(JWSRenewalInfoDecodedPayload.self, from: payload)
        case .signedAppTransaction: return try? decoder.decode(AppTransaction.self, from: payload)
        default: return try? decoder.decode(ResponseBodyV2DecodedPayload.self, from: payload)
        }
    }

    // MARK: V1 notifications and app receipts

    private func inspectNotificationV1(_ data: Data) -> InspectionReport {
        let fields = try? JSONDecoder().decode(NotificationV1Payload.self, from: data)
        guard let sharedSecret = configuration.sharedSecret, let bundleID = configuration.bundleID else {
            return InspectionReport(
                kind: .notificationV1, verified: false, reason: "ArtifactInspector.sharedSecretAndBundleIDRequired",
                checks: [], fields: fields
            )
        }
        let checks = ["password", "appIdentity", "environment"]
        do {
            let verifier = try SignedDataVerifier(
                configuration: .init(
                    bundleID: bundleID,
                    appAppleID: configuration.appAppleID,
                    environment: configuration.environment,
                    signature: .init(roots: configuration.roots)
                ),
                now: now
            )
            let decoder = ServerNotificationDecoder(verifier: verifier, sharedSecret: sharedSecret, now: now)
            let verified = try decoder.decodeV1(body: data)
            return InspectionReport(
                kind: .notificationV1, verified: true, checks: checks, fields: verified.payload,
                core: verified.notification
            )
        } catch {
            return failure(.notificationV1, error, checks: checks, fields: fields)
        }
    }

    private func inspectAppReceipt(_ base64: String) -> InspectionReport {
        do {
            let receipt = try AppReceiptReader().read(base64: base64)
            return InspectionReport(
                kind: .appReceipt, verified: false, reason: "ArtifactInspector.receiptSignatureNotChecked",
                checks: ["structure"],
                fields: AppReceiptFields(receipt: receipt, transactionIDs: receipt.transactionIDs)
            )
        } catch {
            // Not PKCS#7: perhaps an iOS 6 style transaction receipt, whose id is all that can be read offline.
            if let transactionID = TransactionReceipt.transactionID(base64: base64) {
                return InspectionReport(
                    kind: .transactionReceipt, verified: false, reason: "ArtifactInspector.receiptSignatureNotChecked",
                    checks: ["structure"], fields: TransactionReceiptFields(transactionID: transactionID))
            }
            return failure(.appReceipt, error, checks: ["structure"], fields: nil)
        }
    }

    /// What an iOS 6 style transaction receipt says offline: the id to look up with the Server API.
    private struct TransactionReceiptFields: Encodable, Sendable {
        var transactionID: String

        enum CodingKeys: String, CodingKey {
            case transactionID = "transaction_id"
        }
    }

    /// An app receipt's fields plus the ids to query the Server API with.
    private struct AppReceiptFields: Encodable, Sendable {
        var receipt: AppReceipt
        var transactionIDs: [String]
    }

    private func failure(
        _ kind: ArtifactKind,
        _ error: any Error,
        checks: [String],
        fields: (any Encodable & Sendable)?
    ) -> InspectionReport {
        InspectionReport(kind: kind, verified: false, reason: Self.reason(error), checks: checks, fields: fields)
    }

    /// `<ErrorType>.<code>` for this module's typed errors.
    static func reason(_ error: any Error) -> String {
        switch error {
        case let error as JWSVerificationError: return "JWSVerificationError.\(error.code)"
        case let error as NotificationDecodingError:
            if let inner = error.verificationError { return "JWSVerificationError.\(inner.code)" }
            if let mapping = error.mappingError { return "PayloadMappingError.\(mapping.code)" }
            return "NotificationDecodingError.\(error.code)"
        case let error as AppReceiptError: return "AppReceiptError.\(error.code)"
        case let error as PayloadMappingError: return "PayloadMappingError.\(error.code)"
        default: return "ArtifactInspector.unexpectedError"
        }
    }
}
