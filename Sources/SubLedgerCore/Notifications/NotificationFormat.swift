/// The format of a stored store notification, stored as `notifications.version`: which store sent it, and how.
public enum NotificationFormat: String, Sendable, Hashable, CaseIterable {
    /// App Store Server Notifications V1 (legacy JSON, authenticated by the app's shared secret).
    case appStoreV1 = "v1"
    /// App Store Server Notifications V2 (`signedPayload`, a JWS).
    case appStoreV2 = "v2"
    /// A Google Play real-time developer notification in its Pub/Sub push envelope.
    case googlePlayRTDN = "google_rtdn"
    /// A Stripe event as its webhook delivered it (signed in the `Stripe-Signature` header).
    case stripeEvent = "stripe_event"

    /// The store that sent it.
    public var store: Store {
        switch self {
        case .appStoreV1, .appStoreV2: .appStore
        case .googlePlayRTDN: .googlePlay
        case .stripeEvent: .stripe
        }
    }
}
