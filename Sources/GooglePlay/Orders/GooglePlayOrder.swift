import SubLedgerCore

/// The Android Publisher API's `Order` (`orders.get`, `orders.batchGet`): one order of a purchase (a subscription's
/// first order or one of its renewals, or a one-time purchase), with Google's exact field names. Named
/// `GooglePlayOrder` here because the ledger has an `Order` of its own.
///
/// Fields SubLedger does not read (`buyerAddress`, `orderDetails`, `orderHistory`, `pointsDetails`, …) are not
/// decoded; enumerations keep values they do not know.
public struct GooglePlayOrder: Codable, Hashable, Sendable {
    /// The order id: `GPA.…`, with `..N` for a subscription's `N`th renewal.
    public var orderId: String?
    /// The purchase token the order was bought under.
    public var purchaseToken: String?
    public var state: OrderState?
    /// When the order was created (RFC 3339).
    public var createTime: String?
    /// When the order last changed, e.g. its refund (RFC 3339).
    public var lastEventTime: String?
    /// What the buyer paid, taxes included.
    public var total: Money?
    /// The tax in `total`.
    public var tax: Money?
    /// What was bought; one item for an ordinary subscription or one-time product.
    public var lineItems: [OrderLineItem]?

    public init(
        orderId: String?, purchaseToken: String?, state: OrderState?, createTime: String? = nil,
        lastEventTime: String? = nil, total: Money? = nil, tax: Money? = nil, lineItems: [OrderLineItem]? = nil
    ) {
        self.orderId = orderId
        self.purchaseToken = purchaseToken
        self.state = state
        self.createTime = createTime
        self.lastEventTime = lastEventTime
        self.total = total
        self.tax = tax
        self.lineItems = lineItems
    }
}

/// `Order.state`.
public struct OrderState: GoogleEnumeration {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let unspecified = Self(rawValue: "STATE_UNSPECIFIED")
    /// Not yet paid (a slow payment method).
    public static let pending = Self(rawValue: "PENDING")
    /// Paid.
    public static let processed = Self(rawValue: "PROCESSED")
    /// Never paid: canceled before it completed.
    public static let canceled = Self(rawValue: "CANCELED")
    /// A refund was requested and is under way.
    public static let pendingRefund = Self(rawValue: "PENDING_REFUND")
    public static let partiallyRefunded = Self(rawValue: "PARTIALLY_REFUNDED")
    public static let refunded = Self(rawValue: "REFUNDED")

    /// The values Google documents today.
    public static let known: [Self] = [
        .unspecified, .pending, .processed, .canceled, .pendingRefund, .partiallyRefunded, .refunded,
    ]

    /// Whether the order was paid at some point (refunded orders were: their refund is a voided purchase).
    public var wasPaid: Bool {
        self == .processed || self == .pendingRefund || self == .partiallyRefunded || self == .refunded
    }
}

/// `Order.lineItems[]`.
public struct OrderLineItem: Codable, Hashable, Sendable {
    public var productId: String?
    public var productTitle: String?
    /// The price before discounts and taxes.
    public var listingPrice: Money?
    public var total: Money?
    public var tax: Money?
    /// Set for a subscription's order.
    public var subscriptionDetails: OrderSubscriptionDetails?
    /// Set for a one-time product's order.
    public var oneTimePurchaseDetails: OrderOneTimePurchaseDetails?

    public init(
        productId: String?, productTitle: String? = nil, listingPrice: Money? = nil, total: Money? = nil,
        tax: Money? = nil, subscriptionDetails: OrderSubscriptionDetails? = nil,
        oneTimePurchaseDetails: OrderOneTimePurchaseDetails? = nil
    ) {
        self.productId = productId
        self.productTitle = productTitle
        self.listingPrice = listingPrice
        self.total = total
        self.tax = tax
        self.subscriptionDetails = subscriptionDetails
        self.oneTimePurchaseDetails = oneTimePurchaseDetails
    }
}

/// `SubscriptionDetails` of an order's line item: the base plan, offer and the service period the order paid for.
public struct OrderSubscriptionDetails: Codable, Hashable, Sendable {
    public var basePlanId: String?
    public var offerId: String?
    /// The pricing phase of the period the order paid for.
    public var offerPhase: OrderOfferPhase?
    /// The start of the period the order paid for (RFC 3339).
    public var servicePeriodStartTime: String?
    /// The end of the period the order paid for (RFC 3339).
    public var servicePeriodEndTime: String?

    public init(
        basePlanId: String?, offerId: String? = nil, offerPhase: OrderOfferPhase? = nil,
        servicePeriodStartTime: String?, servicePeriodEndTime: String?
    ) {
        self.basePlanId = basePlanId
        self.offerId = offerId
        self.offerPhase = offerPhase
        self.servicePeriodStartTime = servicePeriodStartTime
        self.servicePeriodEndTime = servicePeriodEndTime
    }

    /// `servicePeriodStartTime` read.
    public var servicePeriodStart: Instant? { GoogleTime.parse(servicePeriodStartTime) }
    /// `servicePeriodEndTime` read.
    public var servicePeriodEnd: Instant? { GoogleTime.parse(servicePeriodEndTime) }
}

/// `SubscriptionDetails.offerPhase`.
public struct OrderOfferPhase: GoogleEnumeration {
    public var rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let unspecified = Self(rawValue: "OFFER_PHASE_UNSPECIFIED")
    public static let base = Self(rawValue: "BASE")
    public static let introductory = Self(rawValue: "INTRODUCTORY")
    public static let freeTrial = Self(rawValue: "FREE_TRIAL")
}

/// `OneTimePurchaseDetails` of an order's line item.
public struct OrderOneTimePurchaseDetails: Codable, Hashable, Sendable {
    public var quantity: Int32?
    public var offerId: String?
    public var purchaseOptionId: String?

    public init(quantity: Int32?, offerId: String? = nil, purchaseOptionId: String? = nil) {
        self.quantity = quantity
        self.offerId = offerId
        self.purchaseOptionId = purchaseOptionId
    }
}

/// The answer of `orders.batchGet`.
public struct BatchGetOrdersResponse: Codable, Hashable, Sendable {
    public var orders: [GooglePlayOrder]?

    public init(orders: [GooglePlayOrder]?) { self.orders = orders }
}
