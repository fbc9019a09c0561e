/// The format of a stored store notification, stored as `notifications.version`: which store sent it, and how.
///
/// The App Store sends two versions; every other store pushes one kind of event (`storeEvent`), so a store added to
/// `Store` has its format without a change here.
public enum NotificationFormat: Sendable, Hashable {
    /// App Store Server Notifications V1 (legacy JSON, authenticated by the app's shared secret).
    case appStoreV1
    /// App Store Server Notifications V2 (`signedPayload`, a JWS).
    case appStoreV2
    /// Another store's pushed event (never the App Store's), stored as `<store>_event`: a Stripe event as its webhook
    /// delivered it (signed in the `Stripe-Signature` header). Google Play's real-time developer notification, in its
    /// Pub/Sub push envelope, is stored as `google_rtdn`.
    case storeEvent(Store)

    /// A Google Play real-time developer notification.
    public static let googlePlayRTDN = NotificationFormat.storeEvent(.googlePlay)
    /// A Stripe event.
    public static let stripeEvent = NotificationFormat.storeEvent(.stripe)

    /// The store that sent it.
    public var store: Store {
        switch self {
        case .appStoreV1, .appStoreV2: .appStore
        case .storeEvent(let store): store
        }
    }
}

extension NotificationFormat: RawRepresentable, CaseIterable {
    public static let allCases: [NotificationFormat] =
        [.appStoreV1, .appStoreV2] + Store.allCases.filter { $0 != .appStore }.map { .storeEvent($0) }

    /// As stored: `v1`, `v2`, `google_rtdn`, or a store's `<store>_event` (`stripe_event`).
    public var rawValue: String {
        switch self {
        case .appStoreV1: "v1"
        case .appStoreV2: "v2"
        case .storeEvent(.googlePlay): "google_rtdn"
        case .storeEvent(let store): store.rawValue + "_event"
        }
    }

    public init?(rawValue: String) {
        switch rawValue {
        case "v1": self = .appStoreV1
        case "v2": self = .appStoreV2
        case "google_rtdn": self = .storeEvent(.googlePlay)
        default:
            guard rawValue.hasSuffix("_event"), let store = Store(rawValue: String(rawValue.dropLast(6))),
                store != .appStore, store != .googlePlay
            else { return nil }
            self = .storeEvent(store)
        }
    }
}
