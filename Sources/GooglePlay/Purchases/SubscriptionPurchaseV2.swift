import SubLedgerCore

/// The Android Publisher API's `SubscriptionPurchaseV2` (`purchases.subscriptionsv2.get`): a subscription
/// purchase token's current state, with Google's exact field names.
///
/// Times stay as Google wrote them (RFC 3339 text); the typed reading is beside each (`start`, `expiry`).
public struct SubscriptionPurchaseV2: Codable, Hashable, Sendable {
    /// The resource's kind: `androidpublisher#subscriptionPurchaseV2`.
    public static let resourceKind = "androidpublisher#subscriptionPurchaseV2"

    public var kind: String?
    /// ISO 3166-1 alpha-2 billing country, e.g. `US`.
    public var regionCode: String?
    /// The items of the purchase; one per product for an ordinary subscription.
    public var lineItems: [SubscriptionPurchaseLineItem]?
    /// When the subscription was granted (RFC 3339).
    public var startTime: String?
    public var subscriptionState: SubscriptionState?
    /// Older responses' id of the latest order; superseded by `lineItems[].latestSuccessfulOrderId`.
    public var latestOrderId: String?
    /// The purchase token this one replaces (an upgrade or downgrade, a re-signup): the chain's link.
    public var linkedPurchaseToken: String?
    public var pausedStateContext: PausedStateContext?
    public var canceledStateContext: CanceledStateContext?
    /// Present (empty) when the purchase was made by a license tester.
    public var testPurchase: TestPurchase?
    public var acknowledgementState: AcknowledgementState?
    /// The ids the app passed to the billing library when it launched the purchase.
    public var externalAccountIdentifiers: ExternalAccountIdentifiers?
    /// Present while in the grace period.
    public var inGracePeriodStateContext: RenewalDeclinedStateContext?
    /// Present while on account hold.
    public var onHoldStateContext: RenewalDeclinedStateContext?
    public var etag: String?

    public init(
        kind: String? = SubscriptionPurchaseV2.resourceKind, regionCode: String? = nil,
        lineItems: [SubscriptionPurchaseLineItem]? = nil, startTime: String? = nil,
        subscriptionState: SubscriptionState? = nil, latestOrderId: String? = nil,
        linkedPurchaseToken: String? = nil, pausedStateContext: PausedStateContext? = nil,
        canceledStateContext: CanceledStateContext? = nil, testPurchase: TestPurchase? = nil,
        acknowledgementState: AcknowledgementState? = nil,
        externalAccountIdentifiers: ExternalAccountIdentifiers? = nil,
        inGracePeriodStateContext: RenewalDeclinedStateContext? = nil,
        onHoldStateContext: RenewalDeclinedStateContext? = nil, etag: String? = nil
    ) {
        self.kind = kind
        self.regionCode = regionCode
        self.lineItems = lineItems
        self.startTime = startTime
        self.subscriptionState = subscriptionState
        self.latestOrderId = latestOrderId
        self.linkedPurchaseToken = linkedPurchaseToken
        self.pausedStateContext = pausedStateContext
        self.canceledStateContext = canceledStateContext
        self.testPurchase = testPurchase
        self.acknowledgementState = acknowledgementState
        self.externalAccountIdentifiers = externalAccountIdentifiers
        self.inGracePeriodStateContext = inGracePeriodStateContext
        self.onHoldStateContext = onHoldStateContext
        self.etag = etag
    }

    /// `startTime` read; `nil` when absent or not a time.
    public var start: Instant? { GoogleTime.parse(startTime) }
    /// The latest `expiryTime` of the line items: until when the purchase entitles.
    public var expiry: Instant? { lineItems?.compactMap(\.expiry).max() }
    /// Whether a license tester made it.
    public var isTestPurchase: Bool { testPurchase != nil }
}

/// One product of a subscription purchase.
public struct SubscriptionPurchaseLineItem: Codable, Hashable, Sendable {
    public var productId: String?
    /// When this item's entitlement ends (RFC 3339); in the past for an expired item.
    public var expiryTime: String?
    /// Set for an auto-renewing base plan.
    public var autoRenewingPlan: AutoRenewingPlan?
    /// Set for a prepaid base plan.
    public var prepaidPlan: PrepaidPlan?
    public var offerDetails: OfferDetails?
    /// Which phase of its offer the item is in now (free trial, introductory price, base price).
    public var offerPhase: OfferPhase?
    /// The order id of the latest successful order of this item (renewals end in `..0`, `..1`, …).
    public var latestSuccessfulOrderId: String?

    public init(
        productId: String?, expiryTime: String?, autoRenewingPlan: AutoRenewingPlan? = nil,
        prepaidPlan: PrepaidPlan? = nil, offerDetails: OfferDetails? = nil, offerPhase: OfferPhase? = nil,
        latestSuccessfulOrderId: String? = nil
    ) {
        self.productId = productId
        self.expiryTime = expiryTime
        self.autoRenewingPlan = autoRenewingPlan
        self.prepaidPlan = prepaidPlan
        self.offerDetails = offerDetails
        self.offerPhase = offerPhase
        self.latestSuccessfulOrderId = latestSuccessfulOrderId
    }

    /// `expiryTime` read.
    public var expiry: Instant? { GoogleTime.parse(expiryTime) }
}

/// `AutoRenewingPlan`: whether the item renews, and at what price.
public struct AutoRenewingPlan: Codable, Hashable, Sendable {
    /// `false` once the user (or the developer) canceled: the item ends at its expiry.
    public var autoRenewEnabled: Bool?
    /// The price of the next renewal.
    public var recurringPrice: Money?

    public init(autoRenewEnabled: Bool?, recurringPrice: Money? = nil) {
        self.autoRenewEnabled = autoRenewEnabled
        self.recurringPrice = recurringPrice
    }
}

/// `PrepaidPlan`.
public struct PrepaidPlan: Codable, Hashable, Sendable {
    /// From when the user may top the plan up (RFC 3339).
    public var allowExtendAfterTime: String?

    public init(allowExtendAfterTime: String?) { self.allowExtendAfterTime = allowExtendAfterTime }
}

/// `OfferDetails`: the base plan and offer the item was bought with.
public struct OfferDetails: Codable, Hashable, Sendable {
    public var basePlanId: String?
    /// Absent when bought at the base plan's price.
    public var offerId: String?
    public var offerTags: [String]?

    public init(basePlanId: String?, offerId: String? = nil, offerTags: [String]? = nil) {
        self.basePlanId = basePlanId
        self.offerId = offerId
        self.offerTags = offerTags
    }
}

/// `OfferPhase`: exactly one member is present.
public struct OfferPhase: Codable, Hashable, Sendable {
    public var basePrice: EmptyContext?
    /// A free trial: the current period was not charged.
    public var freeTrial: EmptyContext?
    public var introductoryPrice: EmptyContext?
    public var prorationPeriod: ProrationPeriodOfferPhase?

    public init(
        basePrice: EmptyContext? = nil, freeTrial: EmptyContext? = nil, introductoryPrice: EmptyContext? = nil,
        prorationPeriod: ProrationPeriodOfferPhase? = nil
    ) {
        self.basePrice = basePrice
        self.freeTrial = freeTrial
        self.introductoryPrice = introductoryPrice
        self.prorationPeriod = prorationPeriod
    }

    /// The phase, from whichever member is present.
    public var kind: Kind? {
        if freeTrial != nil { return .freeTrial }
        if introductoryPrice != nil { return .introductoryPrice }
        if prorationPeriod != nil { return .prorationPeriod }
        if basePrice != nil { return .basePrice }
        return nil
    }

    /// The four phases.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        case basePrice, freeTrial, introductoryPrice, prorationPeriod
    }
}

/// `ProrationPeriodOfferPhase`.
public struct ProrationPeriodOfferPhase: Codable, Hashable, Sendable {
    /// `BASE`, `INTRODUCTORY` or `FREE_TRIAL`: the phase before the proration period.
    public var originalOfferPhaseType: String?

    public init(originalOfferPhaseType: String?) { self.originalOfferPhaseType = originalOfferPhaseType }
}

/// `ExternalAccountIdentifiers`: what the app set on the billing flow (`setObfuscatedAccountId`): the way a
/// purchase names the app's own account.
public struct ExternalAccountIdentifiers: Codable, Hashable, Sendable {
    public var externalAccountId: String?
    public var obfuscatedExternalAccountId: String?
    public var obfuscatedExternalProfileId: String?

    public init(
        externalAccountId: String? = nil, obfuscatedExternalAccountId: String?, obfuscatedExternalProfileId: String?
    ) {
        self.externalAccountId = externalAccountId
        self.obfuscatedExternalAccountId = obfuscatedExternalAccountId
        self.obfuscatedExternalProfileId = obfuscatedExternalProfileId
    }
}

/// `PausedStateContext`.
public struct PausedStateContext: Codable, Hashable, Sendable {
    /// When the subscription resumes by itself (RFC 3339).
    public var autoResumeTime: String?

    public init(autoResumeTime: String?) { self.autoResumeTime = autoResumeTime }

    /// `autoResumeTime` read.
    public var autoResume: Instant? { GoogleTime.parse(autoResumeTime) }
}

/// `CanceledStateContext`: who ended the subscription; exactly one member is present.
public struct CanceledStateContext: Codable, Hashable, Sendable {
    public var userInitiatedCancellation: UserInitiatedCancellation?
    /// Google ended it (account hold ran out, an unacknowledged purchase refunded).
    public var systemInitiatedCancellation: EmptyContext?
    /// The developer canceled or revoked it through the API.
    public var developerInitiatedCancellation: EmptyContext?
    /// It was replaced by another subscription (an upgrade or downgrade).
    public var replacementCancellation: EmptyContext?

    public init(
        userInitiatedCancellation: UserInitiatedCancellation? = nil, systemInitiatedCancellation: EmptyContext? = nil,
        developerInitiatedCancellation: EmptyContext? = nil, replacementCancellation: EmptyContext? = nil
    ) {
        self.userInitiatedCancellation = userInitiatedCancellation
        self.systemInitiatedCancellation = systemInitiatedCancellation
        self.developerInitiatedCancellation = developerInitiatedCancellation
        self.replacementCancellation = replacementCancellation
    }

    /// Who canceled, from whichever member is present.
    public var initiator: Initiator? {
        if userInitiatedCancellation != nil { return .user }
        if systemInitiatedCancellation != nil { return .system }
        if developerInitiatedCancellation != nil { return .developer }
        if replacementCancellation != nil { return .replacement }
        return nil
    }

    /// The four kinds of cancellation.
    public enum Initiator: String, Sendable, Hashable, CaseIterable {
        case user, system, developer, replacement
    }
}

/// `UserInitiatedCancellation`.
public struct UserInitiatedCancellation: Codable, Hashable, Sendable {
    /// When the user canceled (RFC 3339).
    public var cancelTime: String?

    public init(cancelTime: String?) { self.cancelTime = cancelTime }
}

/// An object Google sends empty, whose presence is the information (`testPurchase: {}`,
/// `systemInitiatedCancellation: {}`).
public struct EmptyContext: Codable, Hashable, Sendable {
    public init() {}
}

/// `TestPurchase`: present, empty, for a license tester's purchase.
public typealias TestPurchase = EmptyContext

/// `InGracePeriodStateContext` and `OnHoldStateContext`, whose one member is an object SubLedger does not read.
public struct RenewalDeclinedStateContext: Codable, Hashable, Sendable {
    public init() {}
}
