/// A Stripe subscription (API version 2025-03-31 and later: the billing periods are on its items).
public struct StripeSubscription: Decodable, Sendable, Hashable {
    /// `sub_…`: the chain.
    public var id: String
    public var customer: StripeReference?
    /// `incomplete`, `incomplete_expired`, `trialing`, `active`, `past_due`, `canceled`, `unpaid`, `paused`.
    public var status: String
    public var metadata: [String: String]
    public var cancelAtPeriodEnd: Bool
    public var cancelAt: Int64?
    public var canceledAt: Int64?
    public var endedAt: Int64?
    public var trialStart: Int64?
    public var trialEnd: Int64?
    public var startDate: Int64?
    public var created: Int64
    public var livemode: Bool
    public var currency: String?
    public var items: StripeList<StripeSubscriptionItem>
    /// Set while payment collection is paused (`behavior`: `void`, `keep_as_draft`, `mark_uncollectible`).
    public var pauseCollection: PauseCollection?
    public var cancellationDetails: CancellationDetails?

    public struct PauseCollection: Decodable, Sendable, Hashable {
        public var behavior: String?
        public var resumesAt: Int64?

        enum CodingKeys: String, CodingKey {
            case behavior
            case resumesAt = "resumes_at"
        }
    }

    public struct CancellationDetails: Decodable, Sendable, Hashable {
        /// `cancellation_requested`, `payment_failed`, `payment_disputed`, or `nil`.
        public var reason: String?
    }

    enum CodingKeys: String, CodingKey {
        case id, customer, status, metadata, created, livemode, currency, items
        case cancelAtPeriodEnd = "cancel_at_period_end"
        case cancelAt = "cancel_at"
        case canceledAt = "canceled_at"
        case endedAt = "ended_at"
        case trialStart = "trial_start"
        case trialEnd = "trial_end"
        case startDate = "start_date"
        case pauseCollection = "pause_collection"
        case cancellationDetails = "cancellation_details"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        customer = try container.decodeIfPresent(StripeReference.self, forKey: .customer)
        status = try container.decode(String.self, forKey: .status)
        metadata = try container.decodeIfPresent([String: String].self, forKey: .metadata) ?? [:]
        cancelAtPeriodEnd = try container.decodeIfPresent(Bool.self, forKey: .cancelAtPeriodEnd) ?? false
        cancelAt = try container.decodeIfPresent(Int64.self, forKey: .cancelAt)
        canceledAt = try container.decodeIfPresent(Int64.self, forKey: .canceledAt)
        endedAt = try container.decodeIfPresent(Int64.self, forKey: .endedAt)
        trialStart = try container.decodeIfPresent(Int64.self, forKey: .trialStart)
        trialEnd = try container.decodeIfPresent(Int64.self, forKey: .trialEnd)
        startDate = try container.decodeIfPresent(Int64.self, forKey: .startDate)
        created = try container.decode(Int64.self, forKey: .created)
        livemode = try container.decodeIfPresent(Bool.self, forKey: .livemode) ?? false
        currency = try container.decodeIfPresent(String.self, forKey: .currency)
        items = try container.decode(StripeList<StripeSubscriptionItem>.self, forKey: .items)
        pauseCollection = try container.decodeIfPresent(PauseCollection.self, forKey: .pauseCollection)
        cancellationDetails = try container.decodeIfPresent(CancellationDetails.self, forKey: .cancellationDetails)
    }
}

/// One item of a subscription: its price and the period it is billed for.
public struct StripeSubscriptionItem: Decodable, Sendable, Hashable {
    public var id: String
    public var price: StripePrice
    public var quantity: Int64?
    public var currentPeriodStart: Int64?
    public var currentPeriodEnd: Int64?

    enum CodingKeys: String, CodingKey {
        case id, price, quantity
        case currentPeriodStart = "current_period_start"
        case currentPeriodEnd = "current_period_end"
    }
}

/// A price: what a product costs, and for a recurring one how often.
public struct StripePrice: Decodable, Sendable, Hashable {
    public var id: String
    public var product: StripeReference
    public var unitAmount: Int64?
    public var currency: String
    public var recurring: Recurring?
    /// `recurring` or `one_time`.
    public var type: String?

    /// Whether the price is charged once (`one_time`), not each period.
    public var isOneTime: Bool { type.map { $0 == "one_time" } ?? (recurring == nil) }

    public struct Recurring: Decodable, Sendable, Hashable {
        public var interval: String
        public var intervalCount: Int64?

        enum CodingKeys: String, CodingKey {
            case interval
            case intervalCount = "interval_count"
        }
    }

    enum CodingKeys: String, CodingKey {
        case id, product, currency, recurring, type
        case unitAmount = "unit_amount"
    }
}
