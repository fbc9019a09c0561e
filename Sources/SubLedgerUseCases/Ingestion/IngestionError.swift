/// Why the ingestion refused or could not yet take an input, in the ledger's words.
///
/// `code` is stable and machine-readable; `message` is for people and never contains keys, receipts or
/// tokens. Whether a retry can help is `isTransient`; how a client is answered is decided at the HTTP edge
/// alone (`HTTPErrorMapping`).
public struct IngestionError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kinds of refusal, each with its stable code.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// The receipt was issued to, or verified for, another app or environment.
        case foreignReceipt = "foreign_receipt"
        /// Apple says the receipt is not valid.
        case invalidReceipt = "invalid_receipt"
        /// Apple cannot be reached, failed, or keeps failing (the circuit breaker is open); the input is kept.
        case appleUnavailable = "apple_unavailable"
        /// Apple refused SubLedger's credentials for the app (e.g. its shared secret); the input is kept.
        case appleConfigurationError = "apple_configuration_error"
        /// The App Store Server API refused a request for a reason a retry cannot fix.
        case serverAPIRefused = "server_api_error"
        /// A signed transaction or notification is not a JWS naming what it must.
        case malformedJWS = "malformed_jws"
        /// A signed transaction whose signature or claims did not verify.
        case invalidSignedTransaction = "invalid_signed_transaction"
        /// A signed app transaction (StoreKit 2 `AppTransaction`) whose signature or claims did not verify.
        case invalidAppTransaction = "invalid_app_transaction"
        /// A notification body that is not JSON.
        case malformedNotification = "malformed_json"
        /// A JSON body that is neither a V2 nor a V1 notification.
        case unknownNotification = "unknown_notification"
        /// A V2 notification whose signature did not verify.
        case invalidSignature = "invalid_signature"
        /// A V1 notification refused (its shared secret or its shape).
        case invalidNotification = "invalid_notification"
        /// An authentic notification holding what no real one does (a field that cannot be applied).
        case invalidNotificationPayload = "invalid_notification_payload"
        /// No app is configured under the bundle id an input names.
        case unknownApp = "unknown_app"
        /// The input is of an environment its app does not accept.
        case environmentNotAllowed = "environment_not_allowed"
        /// The app is configured so that it cannot verify the input (SubLedger's side, fixed by the catalog).
        case appMisconfigured = "app_misconfigured"
        /// Google Play cannot be reached or failed; the submitted purchase is kept and verified again.
        case googlePlayUnavailable = "google_play_unavailable"
        /// Google refused SubLedger's service account for the app (401/403); the purchase is kept.
        case googlePlayConfigurationError = "google_play_configuration_error"
        /// Google knows no such purchase of this app and product (the token is wrong, or of another app).
        case invalidPurchase = "invalid_purchase"
        /// The purchase is pending (a slow payment method) or was cancelled before it completed: nothing is
        /// bought yet; submit it again once the app sees it purchased.
        case purchaseNotCompleted = "purchase_not_completed"
        /// A Google Play notification push whose OIDC token is missing or did not verify for the app it names (or
        /// that names no app listed on Google Play, or one without push settings).
        case invalidPushToken = "invalid_push_token"
        /// Stripe cannot be reached or failed; the event is stored and applied when Stripe answers.
        case stripeUnavailable = "stripe_unavailable"
        /// Stripe refused the app's secret key (401, 403); the event is stored and applied once the key is fixed.
        case stripeConfigurationError = "stripe_configuration_error"
        /// A store of the ledger's did not answer, or was busy (retryable); the message names the store. A store
        /// added after the first three says so with this code rather than one of its own.
        case storeUnavailable = "store_unavailable"
        /// A store refused the app's credentials (an operator fixes the catalog); the message names the store.
        case storeConfigurationError = "store_configuration_error"
    }

    public let code: Code
    public let message: String
    /// How long to wait before trying again, for transient refusals that know it.
    public let retryAfter: Duration?

    public init(_ code: Code, _ message: String, retryAfter: Duration? = nil) {
        self.code = code
        self.message = message
        self.retryAfter = retryAfter
    }

    /// Whether trying the same input again later can succeed: Apple unavailable, or a configuration on our
    /// side (credentials, the catalog) that an operator can fix. A stored input refused transiently stays
    /// due for retry; any other refusal is final.
    public var isTransient: Bool {
        switch code {
        case .appleUnavailable, .appleConfigurationError, .serverAPIRefused, .appMisconfigured,
            .googlePlayUnavailable, .googlePlayConfigurationError, .stripeUnavailable, .stripeConfigurationError,
            .storeUnavailable, .storeConfigurationError:
            true
        default: false
        }
    }

    public var description: String { "\(code.rawValue): \(message)" }

    /// The same refusal told by the ingestion: the breaker's refusal becomes `apple_unavailable` with the
    /// promise that the stored input is verified later.
    package init(_ error: AppleGatewayError) {
        switch error {
        case .environmentNotAllowed: self.init(.environmentNotAllowed, error.description)
        case .appMisconfigured: self.init(.appMisconfigured, error.description)
        case .circuitOpen(let retryAfter):
            self.init(
                .appleUnavailable, "Apple keeps failing; the input is stored and will be verified when Apple answers",
                retryAfter: retryAfter)
        }
    }
}
