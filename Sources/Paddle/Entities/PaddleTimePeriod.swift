import SubLedgerCore

/// A span of time Paddle states: a transaction's `billing_period`, a subscription's `current_billing_period`.
public struct PaddleTimePeriod: Decodable, Sendable, Hashable {
    public var startsAt: Instant
    public var endsAt: Instant

    public init(startsAt: Instant, endsAt: Instant) {
        self.startsAt = startsAt
        self.endsAt = endsAt
    }

    enum CodingKeys: String, CodingKey {
        case startsAt = "starts_at"
        case endsAt = "ends_at"
    }

    /// Refuses a period that ends before it starts.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        startsAt = try container.paddleInstant(.startsAt)
        endsAt = try container.paddleInstant(.endsAt)
        guard endsAt >= startsAt else { throw container.invalid(.endsAt) }
    }
}

/// A length of time as Paddle states a billing cycle or a trial: `{"interval": "month", "frequency": 1}`.
public struct PaddleDuration: Decodable, Sendable, Hashable {
    /// `day`, `week`, `month` or `year`; another is kept as sent.
    public var interval: Interval
    /// How many intervals: 1 to 1,000.
    public var frequency: Int

    public struct Interval: RawRepresentable, Sendable, Hashable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let day = Interval(rawValue: "day")
        public static let week = Interval(rawValue: "week")
        public static let month = Interval(rawValue: "month")
        public static let year = Interval(rawValue: "year")
    }

    public init(interval: Interval, frequency: Int) {
        self.interval = interval
        self.frequency = frequency
    }

    enum CodingKeys: String, CodingKey {
        case interval, frequency
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        interval = Interval(rawValue: try container.paddleText(.interval))
        guard let frequency = try container.paddleIntIfPresent(.frequency, in: 1...1000) else {
            throw PaddleWireError(.missingField, container.fieldPath(.frequency))
        }
        self.frequency = frequency
    }
}

/// A price as a transaction's or a subscription's item names it: which product, and how often it bills.
public struct PaddlePrice: Decodable, Sendable, Hashable {
    /// `pri_…`
    public var id: String
    /// `pro_…`: what SubLedger's catalog maps to a product of the ledger.
    public var productID: String
    /// How often it bills; `nil` for a one-time price.
    public var billingCycle: PaddleDuration?
    /// The free trial a subscription starts with; `nil` when none.
    public var trialPeriod: PaddleDuration?

    public init(id: String, productID: String, billingCycle: PaddleDuration? = nil, trialPeriod: PaddleDuration? = nil)
    {
        self.id = id
        self.productID = productID
        self.billingCycle = billingCycle
        self.trialPeriod = trialPeriod
    }

    enum CodingKeys: String, CodingKey {
        case id
        case productID = "product_id"
        case billingCycle = "billing_cycle"
        case trialPeriod = "trial_period"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.paddleID(.id)
        productID = try container.paddleID(.productID)
        billingCycle = try container.decodeIfPresent(PaddleDuration.self, forKey: .billingCycle)
        trialPeriod = try container.decodeIfPresent(PaddleDuration.self, forKey: .trialPeriod)
    }
}
