import GooglePlay
import SubLedgerCore

/// Body of `POST /control/purchases`: a user buys a subscription base plan (and offer) or a one-time product.
public struct PurchaseRequest: Sendable, Codable, Hashable {
    public var packageName: String
    public var productId: String
    /// Required when the subscription has several base plans.
    public var basePlanId: String?
    public var offerId: String?
    /// What the app passed to `setObfuscatedAccountId` (at most 64 characters, as Google allows).
    public var obfuscatedExternalAccountId: String?
    public var obfuscatedExternalProfileId: String?
    /// A license tester's purchase (`testPurchase`, purchase type 0).
    public var test: Bool?
    /// ISO 3166-1 alpha-2. Default: `US`.
    public var regionCode: String?
    /// One-time products: 1 to 100. Default: 1.
    public var quantity: Int32?
    /// Paid with a payment method that completes later: pending (not granted, no notification) until
    /// `complete-pending` or `cancel-pending`.
    public var pending: Bool?

    public init(
        packageName: String, productId: String, basePlanId: String? = nil, offerId: String? = nil,
        obfuscatedExternalAccountId: String? = nil, obfuscatedExternalProfileId: String? = nil, test: Bool? = nil,
        regionCode: String? = nil, quantity: Int32? = nil, pending: Bool? = nil
    ) {
        self.packageName = packageName
        self.productId = productId
        self.basePlanId = basePlanId
        self.offerId = offerId
        self.obfuscatedExternalAccountId = obfuscatedExternalAccountId
        self.obfuscatedExternalProfileId = obfuscatedExternalProfileId
        self.test = test
        self.regionCode = regionCode
        self.quantity = quantity
        self.pending = pending
    }
}

enum PurchaseRequestValidation {
    static func check(_ request: PurchaseRequest) throws(SimulatorError) {
        try CatalogValidation.identifier(
            request.packageName, "package_name", maximum: WireText.maximumPackageNameLength)
        try checkProduct(request.productId, basePlanId: request.basePlanId, offerId: request.offerId)
        for (value, field) in [
            (request.obfuscatedExternalAccountId, "obfuscated_external_account_id"),
            (request.obfuscatedExternalProfileId, "obfuscated_external_profile_id"),
        ] {
            if let value, !WireText.isAcceptable(value, maximumLength: 64) {
                throw SimulatorError(.badRequest, "\(field) must be 1 to 64 characters without control characters")
            }
        }
        if let region = request.regionCode {
            guard region.utf8.count == 2, region.unicodeScalars.allSatisfy({ ("A"..."Z").contains($0) }) else {
                throw SimulatorError(.badRequest, "region_code must be two capital letters")
            }
        }
        if let quantity = request.quantity, !(1...100).contains(quantity) {
            throw SimulatorError(.badRequest, "quantity must be 1 to 100")
        }
    }

    /// Ids are checked before they are looked up, so no refusal echoes an unbounded value.
    static func checkProduct(_ productId: String, basePlanId: String?, offerId: String?) throws(SimulatorError) {
        try CatalogValidation.identifier(productId, "product_id")
        if let basePlanId { try CatalogValidation.identifier(basePlanId, "base_plan_id", maximum: 63) }
        if let offerId { try CatalogValidation.identifier(offerId, "offer_id", maximum: 63) }
    }
}

/// Body of `POST /control/subscriptions/{token}/change-plan`.
public struct ChangePlanRequest: Sendable, Codable, Hashable {
    public var productId: String
    public var basePlanId: String?
    public var offerId: String?
    /// What the app set on the new billing flow (the account signed in now); default: the old purchase's.
    public var obfuscatedExternalAccountId: String?
    public var obfuscatedExternalProfileId: String?

    public init(
        productId: String, basePlanId: String? = nil, offerId: String? = nil,
        obfuscatedExternalAccountId: String? = nil, obfuscatedExternalProfileId: String? = nil
    ) {
        self.productId = productId
        self.basePlanId = basePlanId
        self.offerId = offerId
        self.obfuscatedExternalAccountId = obfuscatedExternalAccountId
        self.obfuscatedExternalProfileId = obfuscatedExternalProfileId
    }
}

/// Body of `POST /control/purchases/{token}/refund`.
public struct RefundRequest: Sendable, Codable, Hashable {
    /// Google's `voidedReason` (0 to 8). Default: 0 for a subscription, 1 (remorse) for a one-time product.
    public var reason: Int32?
    /// Google's `voidedSource` (0 user, 1 developer, 2 Google). Default: 1 for a subscription, 0 for a product.
    public var source: Int32?
    /// Subscriptions: also end it now. Default: true.
    public var revoke: Bool?
    /// One-time products: how many to refund (a quantity-based partial refund when fewer than bought).
    public var quantity: Int32?

    public init(reason: Int32? = nil, source: Int32? = nil, revoke: Bool? = nil, quantity: Int32? = nil) {
        self.reason = reason
        self.source = source
        self.revoke = revoke
        self.quantity = quantity
    }

    func check() throws(SimulatorError) {
        if let reason, !(0...8).contains(reason) { throw SimulatorError(.badRequest, "reason must be 0 to 8") }
        if let source, !(0...2).contains(source) { throw SimulatorError(.badRequest, "source must be 0 to 2") }
    }
}

/// Body of `POST /control/subscriptions/{token}/pause`.
public struct PauseRequest: Sendable, Codable, Hashable {
    /// 7 to 90.
    public var days: Int

    public init(days: Int) { self.days = days }
}

/// Body of `POST /control/clock/advance`: the parts are added up; the total is 0 to 3650 days.
public struct ClockAdvanceRequest: Sendable, Codable, Hashable {
    public var milliseconds: Int64?
    public var seconds: Int64?
    public var minutes: Int64?
    public var hours: Int64?
    public var days: Int64?

    public init(
        milliseconds: Int64? = nil, seconds: Int64? = nil, minutes: Int64? = nil, hours: Int64? = nil,
        days: Int64? = nil
    ) {
        self.milliseconds = milliseconds
        self.seconds = seconds
        self.minutes = minutes
        self.hours = hours
        self.days = days
    }

    static let maximum: Int64 = 3650 * Timing.day

    func total() throws(SimulatorError) -> Int64 {
        var total: Int64 = 0
        for (value, unit) in [
            (milliseconds, Int64(1)), (seconds, 1000), (minutes, 60_000), (hours, 3_600_000), (days, Timing.day),
        ] {
            guard let value else { continue }
            let (scaled, overflow) = value.multipliedReportingOverflow(by: unit)
            guard !overflow, value >= 0, scaled <= Self.maximum else {
                throw SimulatorError(.badRequest, "the advance must be 0 to 3650 days")
            }
            total += scaled
            guard total <= Self.maximum else { throw SimulatorError(.badRequest, "the advance must be 0 to 3650 days") }
        }
        return total
    }
}

/// The simulated clock.
public struct ClockDescription: Sendable, Codable, Hashable {
    /// Milliseconds since 1970.
    public var now: Int64
    /// RFC 3339.
    public var time: String
}

/// What a control action answers: the purchase it made or changed, as the simulator holds it, and the
/// notifications it published.
public struct PurchaseDescription: Sendable, Codable, Hashable {
    public var purchaseToken: String
    public var packageName: String
    public var productId: String
    /// `subscription` or `one_time`.
    public var kind: String
    public var orderId: String
    public var basePlanId: String?
    public var offerId: String?
    /// The simulator's state: `active`, `canceled`, `in_grace_period`, `on_hold`, `paused`, `expired` (subscriptions),
    /// `purchased`, `consumed`, `refunded` (one-time products).
    public var state: String
    public var acknowledged: Bool
    public var linkedPurchaseToken: String?
    /// Milliseconds since 1970 (subscriptions).
    public var expiryTime: Int64?
    /// The message ids of the notifications this action published.
    public var messageIds: [String]
}

/// Body of `PATCH /control/notifications/settings`.
public struct NotificationSettingsUpdate: Sendable, Codable, Hashable {
    /// Where pushes go; empty text removes it.
    public var pushUrl: String?
    /// The `aud` of push tokens.
    public var audience: String?
    /// The `email` of push tokens.
    public var serviceAccountEmail: String?
    /// Drop every notification published while on (never pushed, never retried).
    public var drop: Bool?
    /// Send pushes without an `Authorization` header.
    public var unauthenticated: Bool?

    public init(
        pushUrl: String? = nil, audience: String? = nil, serviceAccountEmail: String? = nil, drop: Bool? = nil,
        unauthenticated: Bool? = nil
    ) {
        self.pushUrl = pushUrl
        self.audience = audience
        self.serviceAccountEmail = serviceAccountEmail
        self.drop = drop
        self.unauthenticated = unauthenticated
    }
}

/// Where and how notifications are pushed (`GET` and `PATCH /control/notifications/settings`).
public struct NotificationSettingsDescription: Sendable, Codable, Hashable {
    /// Where pushes go; `nil`: published, not pushed.
    public var pushUrl: String?
    /// The `aud` of push tokens (the push URL unless set).
    public var audience: String?
    public var serviceAccountEmail: String
    public var drop: Bool
    public var unauthenticated: Bool

    init(_ settings: NotificationLog.Settings) {
        pushUrl = settings.pushURL
        audience = settings.audience ?? settings.pushURL
        serviceAccountEmail = settings.serviceAccountEmail
        drop = settings.drop
        unauthenticated = settings.unauthenticated
    }
}
