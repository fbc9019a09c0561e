import SubLedgerCore

/// A real-time developer notification (RTDN): what Google Play publishes to the app's Pub/Sub topic, found
/// base64-encoded in a push's `message.data`. Exactly one of the four notification members is present.
public struct DeveloperNotification: Codable, Hashable, Sendable {
    /// `1.0` today.
    public var version: String?
    public var packageName: String?
    /// When the event happened, milliseconds since 1970 (Google writes it as a string).
    public var eventTimeMillis: GoogleInt64Value?
    public var subscriptionNotification: SubscriptionNotification?
    public var oneTimeProductNotification: OneTimeProductNotification?
    public var voidedPurchaseNotification: VoidedPurchaseNotification?
    public var testNotification: TestNotification?

    public init(
        version: String? = "1.0", packageName: String?, eventTimeMillis: Int64?,
        subscriptionNotification: SubscriptionNotification? = nil,
        oneTimeProductNotification: OneTimeProductNotification? = nil,
        voidedPurchaseNotification: VoidedPurchaseNotification? = nil, testNotification: TestNotification? = nil
    ) {
        self.version = version
        self.packageName = packageName
        self.eventTimeMillis = eventTimeMillis.map(GoogleInt64Value.init)
        self.subscriptionNotification = subscriptionNotification
        self.oneTimeProductNotification = oneTimeProductNotification
        self.voidedPurchaseNotification = voidedPurchaseNotification
        self.testNotification = testNotification
    }

    /// `eventTimeMillis` as an instant.
    public var eventTime: Instant? { eventTimeMillis.map { Instant(millisecondsSince1970: $0.value) } }

    /// Which kind of notification it is, from the member present.
    public var content: Content {
        if let subscriptionNotification { return .subscription(subscriptionNotification) }
        if let oneTimeProductNotification { return .oneTimeProduct(oneTimeProductNotification) }
        if let voidedPurchaseNotification { return .voidedPurchase(voidedPurchaseNotification) }
        if let testNotification { return .test(testNotification) }
        return .none
    }

    /// The one member a notification carries.
    public enum Content: Hashable, Sendable {
        case subscription(SubscriptionNotification)
        case oneTimeProduct(OneTimeProductNotification)
        case voidedPurchase(VoidedPurchaseNotification)
        case test(TestNotification)
        /// None of the members this module knows (a kind Google added later).
        case none
    }
}

/// `SubscriptionNotification`.
public struct SubscriptionNotification: Codable, Hashable, Sendable {
    public var version: String?
    /// The event, as Google's number (see `SubscriptionNotificationType`).
    public var notificationType: SubscriptionNotificationType
    public var purchaseToken: String
    /// The subscription's product id; Google has stopped sending it, so it is optional.
    public var subscriptionId: String?

    public init(
        version: String? = "1.0", notificationType: SubscriptionNotificationType, purchaseToken: String,
        subscriptionId: String? = nil
    ) {
        self.version = version
        self.notificationType = notificationType
        self.purchaseToken = purchaseToken
        self.subscriptionId = subscriptionId
    }
}

/// `SubscriptionNotification.notificationType`: Google's numbered events. Unknown numbers are kept, so a type
/// Google adds later decodes (and `name` is `nil` for it).
public struct SubscriptionNotificationType: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {
    public var rawValue: Int

    public init(rawValue: Int) { self.rawValue = rawValue }

    public init(from decoder: any Decoder) throws {
        rawValue = try decoder.singleValueContainer().decode(Int.self)
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    /// Recovered from account hold, or a paused subscription resumed.
    public static let recovered = Self(rawValue: 1)
    /// An active subscription renewed.
    public static let renewed = Self(rawValue: 2)
    /// Canceled (by the user, the developer or Google): it will not renew.
    public static let canceled = Self(rawValue: 3)
    /// A new subscription was bought.
    public static let purchased = Self(rawValue: 4)
    /// Entered account hold.
    public static let onHold = Self(rawValue: 5)
    /// Entered the grace period.
    public static let inGracePeriod = Self(rawValue: 6)
    /// The user restored it (turned renewal back on) before it expired.
    public static let restarted = Self(rawValue: 7)
    /// A price change was confirmed by the user (deprecated).
    public static let priceChangeConfirmed = Self(rawValue: 8)
    /// The renewal date was deferred.
    public static let deferred = Self(rawValue: 9)
    /// The subscription was paused.
    public static let paused = Self(rawValue: 10)
    /// A pause was scheduled or changed.
    public static let pauseScheduleChanged = Self(rawValue: 11)
    /// Revoked before its expiry.
    public static let revoked = Self(rawValue: 12)
    /// Expired.
    public static let expired = Self(rawValue: 13)
    /// Items of the subscription changed.
    public static let itemsChanged = Self(rawValue: 17)
    /// A cancellation was scheduled.
    public static let cancellationScheduled = Self(rawValue: 18)
    /// A price change was updated.
    public static let priceChangeUpdated = Self(rawValue: 19)
    /// A pending purchase was canceled.
    public static let pendingPurchaseCanceled = Self(rawValue: 20)

    /// Every type Google documents, with its name.
    public static let named: [SubscriptionNotificationType: String] = [
        .recovered: "SUBSCRIPTION_RECOVERED", .renewed: "SUBSCRIPTION_RENEWED", .canceled: "SUBSCRIPTION_CANCELED",
        .purchased: "SUBSCRIPTION_PURCHASED", .onHold: "SUBSCRIPTION_ON_HOLD",
        .inGracePeriod: "SUBSCRIPTION_IN_GRACE_PERIOD", .restarted: "SUBSCRIPTION_RESTARTED",
        .priceChangeConfirmed: "SUBSCRIPTION_PRICE_CHANGE_CONFIRMED", .deferred: "SUBSCRIPTION_DEFERRED",
        .paused: "SUBSCRIPTION_PAUSED", .pauseScheduleChanged: "SUBSCRIPTION_PAUSE_SCHEDULE_CHANGED",
        .revoked: "SUBSCRIPTION_REVOKED", .expired: "SUBSCRIPTION_EXPIRED", .itemsChanged: "SUBSCRIPTION_ITEMS_CHANGED",
        .cancellationScheduled: "SUBSCRIPTION_CANCELLATION_SCHEDULED",
        .priceChangeUpdated: "SUBSCRIPTION_PRICE_CHANGE_UPDATED",
        .pendingPurchaseCanceled: "SUBSCRIPTION_PENDING_PURCHASE_CANCELED",
    ]

    /// Google's name (`SUBSCRIPTION_RENEWED`), or `nil` for a number this module does not know.
    public var name: String? { Self.named[self] }

    /// The name, or the number for an unknown type.
    public var description: String { name ?? "SUBSCRIPTION_NOTIFICATION_TYPE_\(rawValue)" }
}

/// `OneTimeProductNotification`.
public struct OneTimeProductNotification: Codable, Hashable, Sendable {
    public var version: String?
    /// 1 `ONE_TIME_PRODUCT_PURCHASED`, 2 `ONE_TIME_PRODUCT_CANCELED` (a pending purchase canceled).
    public var notificationType: Int
    public var purchaseToken: String
    /// The product id.
    public var sku: String?

    public init(version: String? = "1.0", notificationType: Int, purchaseToken: String, sku: String?) {
        self.version = version
        self.notificationType = notificationType
        self.purchaseToken = purchaseToken
        self.sku = sku
    }

    /// `ONE_TIME_PRODUCT_PURCHASED`.
    public static let purchased = 1
    /// `ONE_TIME_PRODUCT_CANCELED`.
    public static let canceled = 2
}

/// `VoidedPurchaseNotification`: a purchase was refunded, charged back or revoked.
public struct VoidedPurchaseNotification: Codable, Hashable, Sendable {
    public var purchaseToken: String
    /// The order voided (for a subscription, the one refunded order).
    public var orderId: String?
    /// 1 `PRODUCT_TYPE_SUBSCRIPTION`, 2 `PRODUCT_TYPE_ONE_TIME`.
    public var productType: Int?
    /// 1 `REFUND_TYPE_FULL_REFUND`, 2 `REFUND_TYPE_QUANTITY_BASED_PARTIAL_REFUND`.
    public var refundType: Int?

    public init(purchaseToken: String, orderId: String?, productType: Int?, refundType: Int?) {
        self.purchaseToken = purchaseToken
        self.orderId = orderId
        self.productType = productType
        self.refundType = refundType
    }

    /// `PRODUCT_TYPE_SUBSCRIPTION`.
    public static let productTypeSubscription = 1
    /// `PRODUCT_TYPE_ONE_TIME`.
    public static let productTypeOneTime = 2
    /// `REFUND_TYPE_FULL_REFUND`.
    public static let refundTypeFull = 1
    /// `REFUND_TYPE_QUANTITY_BASED_PARTIAL_REFUND`.
    public static let refundTypeQuantityBasedPartial = 2
}

/// `TestNotification`: sent from the Play Console to check the topic.
public struct TestNotification: Codable, Hashable, Sendable {
    public var version: String?

    public init(version: String? = "1.0") { self.version = version }
}
