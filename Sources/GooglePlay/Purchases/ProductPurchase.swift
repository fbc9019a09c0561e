import SubLedgerCore

/// The Android Publisher API's `ProductPurchase` (`purchases.products.get`): a one-time product's purchase.
/// Its states are integers, as Google defines them; each has a typed reading beside it.
public struct ProductPurchase: Codable, Hashable, Sendable {
    /// The resource's kind: `androidpublisher#productPurchase`.
    public static let resourceKind = "androidpublisher#productPurchase"

    public var kind: String?
    /// When the product was bought, milliseconds since 1970 as text.
    public var purchaseTimeMillis: String?
    /// 0 purchased, 1 canceled, 2 pending.
    public var purchaseState: Int32?
    /// 0 yet to be consumed, 1 consumed.
    public var consumptionState: Int32?
    public var developerPayload: String?
    public var orderId: String?
    /// Only for purchases outside the standard flow: 0 test (a license tester), 1 promo, 2 rewarded.
    public var purchaseType: Int32?
    /// 0 yet to be acknowledged, 1 acknowledged.
    public var acknowledgementState: Int32?
    public var purchaseToken: String?
    public var productId: String?
    public var quantity: Int32?
    public var obfuscatedExternalAccountId: String?
    public var obfuscatedExternalProfileId: String?
    public var regionCode: String?
    public var refundableQuantity: Int32?

    public init(
        kind: String? = ProductPurchase.resourceKind, purchaseTimeMillis: String?, purchaseState: Int32?,
        consumptionState: Int32?, developerPayload: String? = nil, orderId: String?, purchaseType: Int32? = nil,
        acknowledgementState: Int32?, purchaseToken: String? = nil, productId: String? = nil, quantity: Int32? = nil,
        obfuscatedExternalAccountId: String? = nil, obfuscatedExternalProfileId: String? = nil,
        regionCode: String? = nil, refundableQuantity: Int32? = nil
    ) {
        self.kind = kind
        self.purchaseTimeMillis = purchaseTimeMillis
        self.purchaseState = purchaseState
        self.consumptionState = consumptionState
        self.developerPayload = developerPayload
        self.orderId = orderId
        self.purchaseType = purchaseType
        self.acknowledgementState = acknowledgementState
        self.purchaseToken = purchaseToken
        self.productId = productId
        self.quantity = quantity
        self.obfuscatedExternalAccountId = obfuscatedExternalAccountId
        self.obfuscatedExternalProfileId = obfuscatedExternalProfileId
        self.regionCode = regionCode
        self.refundableQuantity = refundableQuantity
    }

    /// `purchaseTimeMillis` read.
    public var purchaseTime: Instant? { GoogleInt64.instant(purchaseTimeMillis) }
    /// `purchaseState` 0.
    public var isPurchased: Bool { purchaseState == 0 }
    /// `purchaseState` 1: canceled or refunded.
    public var isCanceled: Bool { purchaseState == 1 }
    /// `consumptionState` 1.
    public var isConsumed: Bool { consumptionState == 1 }
    /// `acknowledgementState` 1.
    public var isAcknowledged: Bool { acknowledgementState == 1 }
    /// `purchaseType` 0: a license tester's purchase.
    public var isTestPurchase: Bool { purchaseType == 0 }
}

/// The Android Publisher API's `ProductPurchaseV2` (`purchases.productsv2.getproductpurchasev2`).
public struct ProductPurchaseV2: Codable, Hashable, Sendable {
    /// The resource's kind: `androidpublisher#productPurchaseV2`.
    public static let resourceKind = "androidpublisher#productPurchaseV2"

    public var kind: String?
    public var productLineItem: [ProductLineItem]?
    /// When the purchase completed (RFC 3339).
    public var purchaseCompletionTime: String?
    public var purchaseStateContext: PurchaseStateContext?
    public var orderId: String?
    public var acknowledgementState: AcknowledgementState?
    public var obfuscatedExternalAccountId: String?
    public var obfuscatedExternalProfileId: String?
    public var regionCode: String?
    /// Present for a license tester's purchase.
    public var testPurchaseContext: TestPurchaseContext?

    public init(
        kind: String? = ProductPurchaseV2.resourceKind, productLineItem: [ProductLineItem]?,
        purchaseCompletionTime: String?, purchaseStateContext: PurchaseStateContext?, orderId: String?,
        acknowledgementState: AcknowledgementState?, obfuscatedExternalAccountId: String? = nil,
        obfuscatedExternalProfileId: String? = nil, regionCode: String? = nil,
        testPurchaseContext: TestPurchaseContext? = nil
    ) {
        self.kind = kind
        self.productLineItem = productLineItem
        self.purchaseCompletionTime = purchaseCompletionTime
        self.purchaseStateContext = purchaseStateContext
        self.orderId = orderId
        self.acknowledgementState = acknowledgementState
        self.obfuscatedExternalAccountId = obfuscatedExternalAccountId
        self.obfuscatedExternalProfileId = obfuscatedExternalProfileId
        self.regionCode = regionCode
        self.testPurchaseContext = testPurchaseContext
    }

    /// `purchaseCompletionTime` read.
    public var purchaseCompletion: Instant? { GoogleTime.parse(purchaseCompletionTime) }
}

/// `ProductLineItem`.
public struct ProductLineItem: Codable, Hashable, Sendable {
    public var productId: String?
    public var productOfferDetails: ProductOfferDetails?

    public init(productId: String?, productOfferDetails: ProductOfferDetails?) {
        self.productId = productId
        self.productOfferDetails = productOfferDetails
    }
}

/// `ProductOfferDetails`.
public struct ProductOfferDetails: Codable, Hashable, Sendable {
    public var offerId: String?
    public var purchaseOptionId: String?
    public var offerToken: String?
    public var offerTags: [String]?
    public var quantity: Int32?
    public var refundableQuantity: Int32?
    public var consumptionState: ConsumptionState?

    public init(
        offerId: String? = nil, purchaseOptionId: String? = nil, offerToken: String? = nil, offerTags: [String]? = nil,
        quantity: Int32?, refundableQuantity: Int32?, consumptionState: ConsumptionState?
    ) {
        self.offerId = offerId
        self.purchaseOptionId = purchaseOptionId
        self.offerToken = offerToken
        self.offerTags = offerTags
        self.quantity = quantity
        self.refundableQuantity = refundableQuantity
        self.consumptionState = consumptionState
    }
}

/// `ProductOfferDetails.consumptionState`.
public struct ConsumptionState: GoogleEnumeration {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let unspecified = Self(rawValue: "CONSUMPTION_STATE_UNSPECIFIED")
    public static let yetToBeConsumed = Self(rawValue: "CONSUMPTION_STATE_YET_TO_BE_CONSUMED")
    public static let consumed = Self(rawValue: "CONSUMPTION_STATE_CONSUMED")
}

/// `PurchaseStateContext`.
public struct PurchaseStateContext: Codable, Hashable, Sendable {
    public var purchaseState: PurchaseState?

    public init(purchaseState: PurchaseState?) { self.purchaseState = purchaseState }
}

/// `PurchaseStateContext.purchaseState`.
public struct PurchaseState: GoogleEnumeration {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let unspecified = Self(rawValue: "PURCHASE_STATE_UNSPECIFIED")
    public static let purchased = Self(rawValue: "PURCHASED")
    /// Canceled or refunded.
    public static let cancelled = Self(rawValue: "CANCELLED")
    public static let pending = Self(rawValue: "PENDING")
}

/// `TestPurchaseContext`.
public struct TestPurchaseContext: Codable, Hashable, Sendable {
    /// `TEST` for a license tester's test card.
    public var fopType: String?

    public init(fopType: String?) { self.fopType = fopType }
}
