import SubLedgerCore

/// A Paddle subscription: its status, the period it is in, when it bills next, and a change scheduled for the end of
/// the period (a cancellation, a pause). The money is on its transactions.
public struct PaddleSubscription: Decodable, Sendable, Hashable {
    /// `sub_…`
    public var id: String
    public var status: Status
    /// `ctm_…`
    public var customerID: String
    public var customData: [String: String]
    public var currencyCode: String
    public var createdAt: Instant
    /// When it started (its first checkout); `nil` where Paddle states none (an imported subscription).
    public var startedAt: Instant?
    /// When it was first billed; `nil` while in its trial.
    public var firstBilledAt: Instant?
    /// When it bills next; `nil` once paused or canceled.
    public var nextBilledAt: Instant?
    public var pausedAt: Instant?
    public var canceledAt: Instant?
    /// The period it is in; `nil` once canceled (and, where Paddle ends it, while paused).
    public var currentBillingPeriod: PaddleTimePeriod?
    public var billingCycle: PaddleDuration?
    public var scheduledChange: ScheduledChange?
    public var items: [Item]

    /// `active`, `trialing`, `past_due`, `paused` or `canceled`; another is kept as sent.
    public struct Status: RawRepresentable, Sendable, Hashable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let active = Status(rawValue: "active")
        public static let trialing = Status(rawValue: "trialing")
        public static let pastDue = Status(rawValue: "past_due")
        public static let paused = Status(rawValue: "paused")
        public static let canceled = Status(rawValue: "canceled")
    }

    /// A change Paddle applies at `effectiveAt` (the end of the period, unless asked for another moment).
    public struct ScheduledChange: Decodable, Sendable, Hashable {
        public var action: Action
        public var effectiveAt: Instant
        /// When a scheduled pause ends; `nil` for an open-ended pause and for other changes.
        public var resumeAt: Instant?

        /// `cancel`, `pause` or `resume`; another is kept as sent.
        public struct Action: RawRepresentable, Sendable, Hashable {
            public var rawValue: String
            public init(rawValue: String) { self.rawValue = rawValue }

            public static let cancel = Action(rawValue: "cancel")
            public static let pause = Action(rawValue: "pause")
            public static let resume = Action(rawValue: "resume")
        }

        public init(action: Action, effectiveAt: Instant, resumeAt: Instant? = nil) {
            self.action = action
            self.effectiveAt = effectiveAt
            self.resumeAt = resumeAt
        }

        enum CodingKeys: String, CodingKey {
            case action
            case effectiveAt = "effective_at"
            case resumeAt = "resume_at"
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            action = Action(rawValue: try container.paddleText(.action))
            effectiveAt = try container.paddleInstant(.effectiveAt)
            resumeAt = try container.paddleInstantIfPresent(.resumeAt)
        }
    }

    /// One item the subscription bills: a price, its quantity and its own status (`active`, `inactive`, `trialing`).
    public struct Item: Decodable, Sendable, Hashable {
        public var status: String
        public var quantity: Int
        public var price: PaddlePrice
        public var nextBilledAt: Instant?

        public init(status: String = "active", quantity: Int = 1, price: PaddlePrice, nextBilledAt: Instant? = nil) {
            self.status = status
            self.quantity = quantity
            self.price = price
            self.nextBilledAt = nextBilledAt
        }

        enum CodingKeys: String, CodingKey {
            case status, quantity, price
            case nextBilledAt = "next_billed_at"
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            status = try container.paddleText(.status)
            quantity = try container.paddleIntIfPresent(.quantity, in: 1...1_000_000_000) ?? 1
            price = try container.decode(PaddlePrice.self, forKey: .price)
            nextBilledAt = try container.paddleInstantIfPresent(.nextBilledAt)
        }
    }

    public init(
        id: String, status: Status, customerID: String, customData: [String: String] = [:], currencyCode: String,
        createdAt: Instant, startedAt: Instant? = nil, firstBilledAt: Instant? = nil, nextBilledAt: Instant? = nil,
        pausedAt: Instant? = nil, canceledAt: Instant? = nil, currentBillingPeriod: PaddleTimePeriod? = nil,
        billingCycle: PaddleDuration? = nil, scheduledChange: ScheduledChange? = nil, items: [Item] = []
    ) {
        self.id = id
        self.status = status
        self.customerID = customerID
        self.customData = customData
        self.currencyCode = currencyCode
        self.createdAt = createdAt
        self.startedAt = startedAt
        self.firstBilledAt = firstBilledAt
        self.nextBilledAt = nextBilledAt
        self.pausedAt = pausedAt
        self.canceledAt = canceledAt
        self.currentBillingPeriod = currentBillingPeriod
        self.billingCycle = billingCycle
        self.scheduledChange = scheduledChange
        self.items = items
    }

    enum CodingKeys: String, CodingKey {
        case id, status, items
        case customerID = "customer_id"
        case customData = "custom_data"
        case currencyCode = "currency_code"
        case createdAt = "created_at"
        case startedAt = "started_at"
        case firstBilledAt = "first_billed_at"
        case nextBilledAt = "next_billed_at"
        case pausedAt = "paused_at"
        case canceledAt = "canceled_at"
        case currentBillingPeriod = "current_billing_period"
        case billingCycle = "billing_cycle"
        case scheduledChange = "scheduled_change"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.paddleID(.id)
        status = Status(rawValue: try container.paddleText(.status))
        customerID = try container.paddleID(.customerID)
        customData = try container.paddleCustomData(.customData)
        currencyCode = try container.paddleCurrency(.currencyCode)
        createdAt = try container.paddleInstant(.createdAt)
        startedAt = try container.paddleInstantIfPresent(.startedAt)
        firstBilledAt = try container.paddleInstantIfPresent(.firstBilledAt)
        nextBilledAt = try container.paddleInstantIfPresent(.nextBilledAt)
        pausedAt = try container.paddleInstantIfPresent(.pausedAt)
        canceledAt = try container.paddleInstantIfPresent(.canceledAt)
        currentBillingPeriod = try container.decodeIfPresent(PaddleTimePeriod.self, forKey: .currentBillingPeriod)
        billingCycle = try container.decodeIfPresent(PaddleDuration.self, forKey: .billingCycle)
        scheduledChange = try container.decodeIfPresent(ScheduledChange.self, forKey: .scheduledChange)
        items = try container.decodeIfPresent([Item].self, forKey: .items) ?? []
        guard items.count <= PaddleTransaction.maximumItems else { throw container.invalid(.items) }
    }

    /// The product it bills for: its first item's price's product (a subscription of one plan has one item).
    public var productID: String? { items.first?.price.productID }
}
