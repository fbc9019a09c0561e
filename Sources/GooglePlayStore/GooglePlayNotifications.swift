import Foundation
import GooglePlay
import GooglePlayClients
import Logging
import SubLedgerCore
import SubLedgerStore
import SubLedgerUseCases

/// Google Play's real-time developer notifications (RTDN), pushed by Pub/Sub: authenticated by the push's OIDC
/// token, stored as received (once per Pub/Sub `messageId`), then applied from the state the Developer API gives
/// back. A notification is a hint: what it says happened is read again from Google before anything is applied, so
/// duplicated, reordered or dropped notifications leave the same state (the poller finds what was dropped).
public struct GooglePlayNotifications: Sendable {
    let ingestion: GooglePlayIngestion
    let findApp: @Sendable (_ packageName: String) async throws -> StoredApp?
    let logger: Logger
    let now: @Sendable () -> Instant
    /// The clock push tokens are checked against: Google signs them with the time of day, so it is the system's
    /// even where `now` (the ledger's clock) is a test's.
    let tokenClock: @Sendable () -> Instant

    /// The longest Pub/Sub message id accepted (Google's are decimal numbers of about 16 digits).
    static let maximumMessageIDLength = 256

    public init(
        ingestion: GooglePlayIngestion,
        findApp: @escaping @Sendable (_ packageName: String) async throws -> StoredApp?, logger: Logger,
        now: @escaping @Sendable () -> Instant,
        tokenClock: @escaping @Sendable () -> Instant = { Instant.systemNow() }
    ) {
        self.ingestion = ingestion
        self.findApp = findApp
        self.logger = logger
        self.now = now
        self.tokenClock = tokenClock
    }

    /// Authenticates, stores and applies one push. Refusals: `malformed_json` (400) for a body that is not a push of
    /// an RTDN; `invalid_push_token` (401) for an unknown package, an app without push settings, or a token that
    /// does not verify (one answer for all, so the route reveals nothing of the configuration); Google unavailable
    /// (503): the notification is stored and applied later by the renewal job, or by Pub/Sub's redelivery. Traced as
    /// an App Store notification is (`IngestionStep`): `verify` (the push token, before the app is known), `store`,
    /// then in `apply(_:_:type:app:)` `verify` (the purchase read from Google) and `apply`.
    public func receive(body: Data, authorization: String?) async throws -> PushOutcome {
        let envelope: PubSubPushEnvelope
        let notification: DeveloperNotification
        do {
            (envelope, notification) = try DeveloperNotificationDecoder.decode(pushBody: body)
        } catch {
            throw IngestionError(.malformedNotification, "the body is not a Pub/Sub push of a developer notification")
        }
        let app = try await IngestionStep.verify.traced(app: nil) {
            try await authenticate(notification, authorization: authorization)
        }
        guard let messageID = envelope.message.messageId,
            (1...Self.maximumMessageIDLength).contains(messageID.utf8.count),
            messageID.utf8.allSatisfy({ (0x21...0x7E).contains($0) })
        else {
            throw IngestionError(.malformedNotification, "the push has no usable message id")
        }
        if case .test = notification.content { return .test }
        let record = LedgerStore.PushedNotificationRecord(
            notificationID: "google_play:\(app.definition.googlePlay?.packageName ?? ""):\(messageID)",
            format: .googlePlayRTDN,
            notificationType: Self.type(of: notification), body: String(decoding: body, as: UTF8.self),
            eventTime: notification.eventTime)
        let stored = try await IngestionStep.store.traced(app: app.bundleID) {
            try await ingestion.store.storePushedNotification(record, app: app)
        }
        if stored.alreadyApplied { return .duplicate }
        return try await apply(stored.id, notification, type: record.notificationType, app: app)
    }

    /// Applies a stored notification the renewal job claimed (its first attempt failed, or the process died).
    public func applyStored(_ pending: PollQueue.PendingNotification, app: StoredApp) async throws -> PushOutcome {
        let notification: DeveloperNotification
        do {
            notification = try DeveloperNotificationDecoder.decode(pushBody: Data(pending.body.utf8)).notification
        } catch {
            try await ingestion.store.markNotification(
                pending.rowID, failed: "unreadable stored push", retryable: false, now: now())
            throw IngestionError(.malformedNotification, "the stored push cannot be read again")
        }
        return try await apply(pending.rowID, notification, type: Self.type(of: notification), app: app)
    }

    /// The app a notification names, once its push token verified for that app's push settings.
    func authenticate(_ notification: DeveloperNotification, authorization: String?) async throws -> StoredApp {
        guard let packageName = notification.packageName, GooglePlayListing.isPackageName(packageName),
            let app = try await findApp(packageName)
        else {
            throw IngestionError(.invalidPushToken, "no app is listed on Google Play under the package name")
        }
        guard let listing = app.definition.googlePlay, let audience = listing.pushAudience,
            let account = listing.pushServiceAccount
        else {
            logger.error(
                "a Google Play notification was refused: the app has no google_play.push_audience and push_service_account",
                metadata: ["bundle_id": "\(app.bundleID)"])
            throw IngestionError(.invalidPushToken, "the app accepts no notifications")
        }
        let token: String
        let keyID: String?
        do {
            token = try CompactJWT.bearerToken(fromAuthorization: authorization)
            keyID = try CompactJWT(token).header.kid
        } catch {
            throw IngestionError(.invalidPushToken, "the push carries no bearer token: \(error.code)")
        }
        let keys: JSONWebKeySet
        do {
            keys = try await ingestion.gateway.pushKeys.keys(containing: keyID)
        } catch {
            // Google's keys cannot be fetched: a retry (Pub/Sub redelivers) can succeed.
            throw IngestionError(
                .googlePlayUnavailable, "Google's push keys cannot be fetched (\(error.code))",
                retryAfter: .seconds(GooglePlayIngestion.retryAfterSeconds))
        }
        let verifier = PubSubPushTokenVerifier(
            configuration: .init(audience: audience, serviceAccountEmail: account), keys: keys)
        do {
            _ = try verifier.verify(token, now: tokenClock())
        } catch {
            throw IngestionError(.invalidPushToken, "the push token did not verify: \(error.code)")
        }
        return app
    }

    /// Reads the state the notification hints at and applies it with the stored row (marked applied in the same
    /// transaction). A failure is recorded on the row: Google unavailable is retried with backoff; a purchase
    /// Google does not know is final.
    func apply(_ id: Int64, _ notification: DeveloperNotification, type: String, app: StoredApp) async throws
        -> PushOutcome
    {
        let input: LedgerInput
        do {
            input = try await IngestionStep.verify.traced(app: app.bundleID) {
                try await self.input(for: notification, app: app)
            }
        } catch let refusal as IngestionError {
            try await ingestion.store.markNotification(
                id, failed: refusal.code.rawValue + ": " + refusal.message, retryable: refusal.isTransient,
                now: now())
            if refusal.isTransient { throw refusal }
            // Verified and stored, but about nothing Google can show: Pub/Sub need not deliver it again.
            logger.warning(
                "a Google Play notification names a purchase Google cannot show",
                metadata: ["notification": "\(id)", "reason": "\(refusal)"])
            return .applied(notificationType: type)
        }
        do {
            let outcome = try await IngestionStep.apply.traced(app: app.bundleID) {
                try await ingestion.store.applyStoredNotification(id, input, app: app, now: now())
            }
            switch outcome {
            case .duplicate:
                return .duplicate
            case .applied(_, let applied):
                LedgerMetrics.record(applied)
                return .applied(notificationType: type)
            }
        } catch {
            try await ingestion.store.markNotification(id, failed: "\(error)", retryable: true, now: now())
            throw error
        }
    }

    /// What the notification's purchase is now, as the ledger's input (no submitter: renewals and revocations go
    /// to the chain's owner). Empty when there is nothing to apply: a purchase still pending or cancelled before
    /// it completed, a product the catalog does not sell on Google Play, a kind of notification not known.
    func input(for notification: DeveloperNotification, app: StoredApp) async throws -> LedgerInput {
        var observations: [Transaction] = []
        var renewals: [RenewalInfo] = []
        switch notification.content {
        case .subscription(let subscription):
            if let observed = try await ingestion.observeSubscription(token: subscription.purchaseToken, app: app) {
                observations += observed.transactions
                renewals += [observed.renewalInfo].compactMap { $0 }
            }
        case .oneTimeProduct(let product):
            if let observed = try await ingestion.observeProduct(token: product.purchaseToken, app: app) {
                observations.append(observed.transaction)
            }
        case .voidedPurchase(let voided):
            // Read back from the voided purchases list (the notification says a void happened, the list says which
            // order and when). Not listed yet: tried again later, when it is.
            let (listed, revoked) = try await ingestion.revocations(
                ofToken: voided.purchaseToken, orderID: voided.orderId, around: notification.eventTime ?? now(),
                app: app)
            guard listed > 0 else {
                throw IngestionError(
                    .googlePlayUnavailable, "Google does not list the voided purchase yet",
                    retryAfter: .seconds(GooglePlayIngestion.retryAfterSeconds))
            }
            observations += revoked
        case .test, .none:
            break
        }
        let environment = observations.first?.environment ?? .production
        return LedgerInput(
            kind: .notification, bundleID: app.bundleID, environment: environment, submitter: nil,
            transactions: observations.filter { $0.environment == environment }, renewalInfo: renewals,
            observedAt: now())
    }

    /// The stored `notification_type`: Google's event name.
    static func type(of notification: DeveloperNotification) -> String {
        switch notification.content {
        case .subscription(let subscription): subscription.notificationType.description
        case .oneTimeProduct(let product):
            product.notificationType == OneTimeProductNotification.purchased
                ? "ONE_TIME_PRODUCT_PURCHASED"
                : product.notificationType == OneTimeProductNotification.canceled
                    ? "ONE_TIME_PRODUCT_CANCELED" : "ONE_TIME_PRODUCT_NOTIFICATION_TYPE_\(product.notificationType)"
        case .voidedPurchase: "VOIDED_PURCHASE"
        case .test: "TEST_NOTIFICATION"
        case .none: "UNKNOWN"
        }
    }
}
