import Crypto
import Foundation
import SubLedgerCore

/// Authenticates and decodes App Store Server Notifications, V2 (signed) and V1 (shared-secret password).
public struct ServerNotificationDecoder: Sendable {
    /// The largest notification body accepted.
    public static let maximumBodyBytes = 1024 * 1024

    private let verifier: SignedDataVerifier
    private let sharedSecret: String?
    private let now: @Sendable () -> Instant

    /// Creates a decoder; `sharedSecret` authenticates V1 notifications (V1 is refused without it).
    public init(
        verifier: SignedDataVerifier,
        sharedSecret: String?,
        now: @escaping @Sendable () -> Instant = { Instant.systemNow() }
    ) {
        self.verifier = verifier
        self.sharedSecret = sharedSecret
        self.now = now
    }

    /// Decodes a V2 HTTP body `{"signedPayload": "..."}`.
    public func decodeV2(body: Data) async throws(NotificationDecodingError) -> VerifiedNotificationV2 {
        struct Body: Decodable {
            var signedPayload: String
        }
        guard body.count <= Self.maximumBodyBytes else { throw NotificationDecodingError(.bodyTooLarge) }
        let signedPayload: String
        if let plain = NotificationBodyV2.plainSignedPayload(body) {
            signedPayload = plain
        } else {
            do {
                signedPayload = try JSONDecoder().decode(Body.self, from: body).signedPayload
            } catch {
                throw NotificationDecodingError(.malformedBody)
            }
        }
        return try await decodeV2(signedPayload: signedPayload)
    }

    /// Verifies a V2 `signedPayload` and every signed item inside it, then maps it to the core.
    public func decodeV2(signedPayload: String) async throws(NotificationDecodingError) -> VerifiedNotificationV2 {
        let jws: CompactJWS
        do {
            jws = try JWSSignatureVerifier.decode(signedPayload)
        } catch {
            throw NotificationDecodingError(.verificationFailed, verificationError: error)
        }
        return try await decodeV2(signedPayload: jws)
    }

    /// `decodeV2(signedPayload:)` for a `signedPayload` already parsed with `JWSSignatureVerifier.decode(_:)`
    /// (to read the app it claims, say), so it is not parsed again.
    public func decodeV2(signedPayload jws: CompactJWS) async throws(NotificationDecodingError)
        -> VerifiedNotificationV2
    {
        let payload: ResponseBodyV2DecodedPayload
        do {
            payload = try await verifier.verifyNotification(jws)
        } catch {
            throw NotificationDecodingError(.verificationFailed, verificationError: error)
        }
        return try await decodeNested(payload)
    }

    /// `decodeV2(signedPayload:)` for a `signedPayload` whose payload was decoded before verification (to read
    /// the app it claims), so it is neither parsed nor decoded again.
    public func decodeV2(_ notification: UnverifiedNotificationV2) async throws(NotificationDecodingError)
        -> VerifiedNotificationV2
    {
        let payload: ResponseBodyV2DecodedPayload
        do {
            payload = try await verifier.verifyNotification(notification)
        } catch {
            throw NotificationDecodingError(.verificationFailed, verificationError: error)
        }
        return try await decodeNested(payload)
    }

    /// Verifies the signed items inside an authentic notification payload, then maps it to the core.
    private func decodeNested(_ payload: ResponseBodyV2DecodedPayload) async throws(NotificationDecodingError)
        -> VerifiedNotificationV2
    {
        do {
            var transaction: JWSTransactionDecodedPayload?
            var renewalInfo: JWSRenewalInfoDecodedPayload?
            var appTransaction: AppTransaction?
            if let token = payload.data?.signedTransactionInfo {
                transaction = try await verifier.verifyTransaction(token)
            }
            if let token = payload.data?.signedRenewalInfo {
                renewalInfo = try await verifier.verifyRenewalInfo(token)
            }
            if let token = payload.appData?.signedAppTransactionInfo {
                appTransaction = try await verifier.verifyAppTransaction(token)
            }
            let token = try Self.externalPurchaseToken(payload)
            let notification = try mapV2(
                payload, transaction: transaction, renewalInfo: renewalInfo,
                externalPurchaseID: token?.externalPurchaseID)
            return VerifiedNotificationV2(
                payload: payload,
                transaction: transaction,
                renewalInfo: renewalInfo,
                appTransaction: appTransaction,
                notification: notification,
                externalPurchaseToken: token
            )
        } catch let error as JWSVerificationError {
            throw NotificationDecodingError(.verificationFailed, verificationError: error)
        } catch let error as PayloadMappingError {
            throw NotificationDecodingError(.unmappable, mappingError: error)
        } catch let error as NotificationDecodingError {
            throw error
        } catch {
            throw NotificationDecodingError(.malformedBody)
        }
    }

    private func mapV2(
        _ payload: ResponseBodyV2DecodedPayload,
        transaction: JWSTransactionDecodedPayload?,
        renewalInfo: JWSRenewalInfoDecodedPayload?,
        externalPurchaseID: String?
    ) throws -> ServerNotification {
        guard let notificationID = payload.notificationUUID, !notificationID.isEmpty else {
            throw PayloadMappingError(.missingField, field: "notificationUUID")
        }
        guard let notificationType = payload.rawNotificationType, !notificationType.isEmpty else {
            throw PayloadMappingError(.missingField, field: "notificationType")
        }
        // The verifier has already required the bundle id and environment to be the configured ones.
        let configuration = verifier.configuration
        let appAppleID =
            payload.data?.appAppleID ?? payload.summary?.appAppleID ?? payload.appData?.appAppleID
            ?? payload.externalPurchaseToken?.appAppleID
        return ServerNotification(
            notificationID: notificationID,
            version: .v2,
            notificationType: notificationType,
            subtype: payload.rawSubtype,
            bundleID: configuration.bundleID,
            appAppleID: appAppleID,
            environment: configuration.environment,
            signedDate: try Instant.appleIfPresent(payload.signedDate, field: "signedDate") ?? now(),
            transaction: try transaction?.coreTransaction(source: .notificationV2),
            renewalInfo: try renewalInfo?.coreRenewalInfo(),
            consumptionRequestReason: try Self.consumptionRequestReason(payload.data?.rawConsumptionRequestReason),
            externalPurchaseID: externalPurchaseID
        )
    }

    /// An `EXTERNAL_PURCHASE_TOKEN` notification's token (the verifier already required its `bundleId` and
    /// `appAppleId` to be the app's): every field present, the id in the shape of Apple's ids, the date in range.
    /// Other notifications have none. A `tokenType` this code does not know stays raw in the payload.
    static func externalPurchaseToken(_ payload: ResponseBodyV2DecodedPayload) throws(PayloadMappingError)
        -> CheckedExternalPurchaseToken?
    {
        guard payload.notificationType == .externalPurchaseToken else { return nil }
        guard let token = payload.externalPurchaseToken else {
            throw PayloadMappingError(.missingField, field: "externalPurchaseToken")
        }
        guard let id = token.externalPurchaseID else {
            throw PayloadMappingError(.missingField, field: "externalPurchaseId")
        }
        guard !id.isEmpty, id.utf8.count <= ExternalPurchaseTokenChecker.maximumIdentifierLength,
            id.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && $0.value < 0x7F })
        else { throw PayloadMappingError(.invalidIdentifier, field: "externalPurchaseId") }
        guard let bundleID = token.bundleID else { throw PayloadMappingError(.missingField, field: "bundleId") }
        guard let appAppleID = token.appAppleID else { throw PayloadMappingError(.missingField, field: "appAppleId") }
        guard let created = token.tokenCreationDate else {
            throw PayloadMappingError(.missingField, field: "tokenCreationDate")
        }
        return CheckedExternalPurchaseToken(
            externalPurchaseID: id, bundleID: bundleID, appAppleID: appAppleID,
            createdAt: try Instant.apple(created, field: "tokenCreationDate"), tokenType: token.tokenType,
            environment: token.environment)
    }

    /// Apple's `consumptionRequestReason`, kept raw so a value Apple adds later is stored, but only in the shape
    /// Apple's values have (1 to 64 of `A-Z` and `_`); another shape refuses the payload.
    static func consumptionRequestReason(_ raw: String?) throws -> String? {
        guard let raw else { return nil }
        guard (1...64).contains(raw.utf8.count),
            raw.utf8.allSatisfy({ (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) || $0 == UInt8(ascii: "_") })
        else { throw PayloadMappingError(.valueOutOfRange, field: "consumptionRequestReason") }
        return raw
    }

    /// Decodes a V1 body: checks `password` against the shared secret (constant time), the bundle id and
    /// the environment, and maps `unified_receipt` to a receipt snapshot observed at `receivedAt`.
    ///
    /// The notification id is the SHA-256 (hex) of the exact body bytes, so Apple's retries of the same
    /// notification get the same id.
    public func decodeV1(body: Data, receivedAt: Instant? = nil) throws(NotificationDecodingError)
        -> VerifiedNotificationV1
    {
        guard body.count <= Self.maximumBodyBytes else { throw NotificationDecodingError(.bodyTooLarge) }
        guard let sharedSecret, !sharedSecret.isEmpty else { throw NotificationDecodingError(.missingSharedSecret) }
        let payload: NotificationV1Payload
        do {
            payload = try JSONDecoder().decode(NotificationV1Payload.self, from: body)
        } catch {
            throw NotificationDecodingError(.malformedBody)
        }
        guard let password = payload.password, ConstantTimeComparison.equals(password, sharedSecret) else {
            throw NotificationDecodingError(.wrongPassword)
        }
        guard let notificationType = payload.rawNotificationType, !notificationType.isEmpty else {
            throw NotificationDecodingError(.unmappable, mappingError: .init(.missingField, field: "notification_type"))
        }
        let configuration = verifier.configuration
        guard let bundleID = payload.bid, bundleID == configuration.bundleID else {
            throw NotificationDecodingError(.invalidAppIdentifier)
        }
        let rawEnvironment = payload.rawEnvironment ?? payload.unifiedReceipt?.rawEnvironment
        guard let environment = rawEnvironment.flatMap(StoreEnvironment.init(appleSpelling:)),
            environment == configuration.environment
        else {
            throw NotificationDecodingError(.invalidEnvironment)
        }
        // The top-level dates map to nothing, but a body that states an impossible date is not Apple's.
        do {
            let autoRenewChange = payload.autoRenewStatusChangeDateMS
            _ = try Instant.appleIfPresent(autoRenewChange, field: "auto_renew_status_change_date_ms")
            _ = try Instant.appleIfPresent(payload.cancellationDateMS, field: "cancellation_date_ms")
        } catch {
            throw NotificationDecodingError(.unmappable, mappingError: error)
        }
        let received = receivedAt ?? now()
        var receipt: ReceiptSnapshot?
        if let unified = payload.unifiedReceipt {
            do {
                receipt = try ReceiptSnapshot.assemble(
                    bundleID: bundleID,
                    applicationVersion: payload.bvrs,
                    environment: environment,
                    creationDate: nil,
                    requestDate: received,
                    entries: unified.latestReceiptInfo,
                    renewals: unified.pendingRenewalInfo,
                    latestReceipt: unified.latestReceipt,
                    source: .notificationV1
                )
            } catch {
                throw NotificationDecodingError(.unmappable, mappingError: error)
            }
        }
        let notificationID = SHA256.hash(data: body).map { String(format: "%02x", $0) }.joined()
        let notification = ServerNotification(
            notificationID: notificationID,
            version: .v1,
            notificationType: notificationType,
            bundleID: bundleID,
            // V1 bodies carry no app id (`auto_renew_adam_id` identifies the subscription product).
            appAppleID: nil,
            environment: environment,
            signedDate: received,
            receipt: receipt
        )
        return VerifiedNotificationV1(payload: payload, notification: notification)
    }
}
