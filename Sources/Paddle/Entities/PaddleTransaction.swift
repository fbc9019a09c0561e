import SubLedgerCore

/// A Paddle transaction: one billing (a checkout's first payment, a subscription's renewal), with what it bills for
/// and Paddle's totals. Paddle is the merchant of record: `details.totals` states the tax Paddle charged, its fee and
/// the seller's earnings; `details.payout_totals` the same in the seller's payout currency once paid.
public struct PaddleTransaction: Decodable, Sendable, Hashable {
    /// `txn_…`
    public var id: String
    public var status: Status
    /// `ctm_…`; `nil` on a draft no customer has opened yet.
    public var customerID: String?
    /// `sub_…`: the subscription it started or renewed; `nil` for a one-time purchase.
    public var subscriptionID: String?
    public var origin: Origin
    /// `custom_data`'s text entries (`PaddleDecoding`: what SubLedger can keep).
    public var customData: [String: String]
    public var currencyCode: String
    /// When it was billed (a renewal's moment, a checkout's payment); `nil` before.
    public var billedAt: Instant?
    public var createdAt: Instant
    /// The period a subscription's transaction pays for; `nil` for a one-time purchase (and before a checkout's
    /// subscription starts).
    public var billingPeriod: PaddleTimePeriod?
    public var items: [Item]
    public var details: Details?

    /// `draft`, `ready`, `billed`, `paid`, `completed`, `canceled` or `past_due`; another is kept as sent.
    public struct Status: RawRepresentable, Sendable, Hashable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let draft = Status(rawValue: "draft")
        public static let ready = Status(rawValue: "ready")
        public static let billed = Status(rawValue: "billed")
        public static let paid = Status(rawValue: "paid")
        public static let completed = Status(rawValue: "completed")
        public static let canceled = Status(rawValue: "canceled")
        public static let pastDue = Status(rawValue: "past_due")

        /// Whether the customer has paid: `paid` (captured) or `completed` (and processed by Paddle).
        public var isPaid: Bool { self == .paid || self == .completed }
    }

    /// What made the transaction: `api`, `web` (a checkout), `subscription_recurring` (a renewal),
    /// `subscription_charge`, `subscription_update`, `subscription_payment_method_change`; another is kept as sent.
    public struct Origin: RawRepresentable, Sendable, Hashable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let api = Origin(rawValue: "api")
        public static let web = Origin(rawValue: "web")
        public static let subscriptionRecurring = Origin(rawValue: "subscription_recurring")
        public static let subscriptionCharge = Origin(rawValue: "subscription_charge")
        public static let subscriptionUpdate = Origin(rawValue: "subscription_update")
        public static let subscriptionPaymentMethodChange = Origin(rawValue: "subscription_payment_method_change")
    }

    /// One item billed: a price and its quantity.
    public struct Item: Decodable, Sendable, Hashable {
        public var price: PaddlePrice
        public var quantity: Int

        public init(price: PaddlePrice, quantity: Int = 1) {
            self.price = price
            self.quantity = quantity
        }

        enum CodingKeys: String, CodingKey {
            case price, quantity
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            price = try container.decode(PaddlePrice.self, forKey: .price)
            quantity = try container.paddleIntIfPresent(.quantity, in: 1...1_000_000_000) ?? 1
        }
    }

    /// `details`: Paddle's calculation of the transaction, the source of truth for its money.
    public struct Details: Decodable, Sendable, Hashable {
        public var totals: Totals?
        /// The totals in the seller's payout currency; `nil` until the transaction is paid.
        public var payoutTotals: PayoutTotals?

        public init(totals: Totals? = nil, payoutTotals: PayoutTotals? = nil) {
            self.totals = totals
            self.payoutTotals = payoutTotals
        }

        enum CodingKeys: String, CodingKey {
            case totals
            case payoutTotals = "payout_totals"
        }
    }

    /// `details.totals`, in minor units of `currencyCode`.
    public struct Totals: Decodable, Sendable, Hashable {
        /// Before tax and discount.
        public var subtotal: Int64
        public var discount: Int64
        /// The tax Paddle charged as merchant of record.
        public var tax: Int64
        /// Subtotal less discount plus tax: what the items cost the customer.
        public var total: Int64
        /// What was due after credits; `nil` where not stated.
        public var grandTotal: Int64?
        /// Paddle's fee; `nil` until paid.
        public var fee: Int64?
        /// What the seller earns (total less tax and fee); `nil` until paid.
        public var earnings: Int64?
        public var currencyCode: String

        public init(
            subtotal: Int64, discount: Int64 = 0, tax: Int64, total: Int64, grandTotal: Int64? = nil,
            fee: Int64? = nil, earnings: Int64? = nil, currencyCode: String
        ) {
            self.subtotal = subtotal
            self.discount = discount
            self.tax = tax
            self.total = total
            self.grandTotal = grandTotal
            self.fee = fee
            self.earnings = earnings
            self.currencyCode = currencyCode
        }

        enum CodingKeys: String, CodingKey {
            case subtotal, discount, tax, total, fee, earnings
            case grandTotal = "grand_total"
            case currencyCode = "currency_code"
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            subtotal = try container.paddleMoney(.subtotal)
            discount = try container.paddleMoneyIfPresent(.discount) ?? 0
            tax = try container.paddleMoney(.tax)
            total = try container.paddleMoney(.total)
            grandTotal = try container.paddleMoneyIfPresent(.grandTotal)
            fee = try container.paddleMoneyIfPresent(.fee)
            earnings = try container.paddleMoneyIfPresent(.earnings)
            currencyCode = try container.paddleCurrency(.currencyCode)
        }
    }

    /// `details.payout_totals`, in minor units of the seller's payout currency.
    public struct PayoutTotals: Decodable, Sendable, Hashable {
        public var subtotal: Int64
        public var tax: Int64
        public var total: Int64
        public var fee: Int64
        public var earnings: Int64
        public var currencyCode: String

        public init(subtotal: Int64, tax: Int64, total: Int64, fee: Int64, earnings: Int64, currencyCode: String) {
            self.subtotal = subtotal
            self.tax = tax
            self.total = total
            self.fee = fee
            self.earnings = earnings
            self.currencyCode = currencyCode
        }

        enum CodingKeys: String, CodingKey {
            case subtotal, tax, total, fee, earnings
            case currencyCode = "currency_code"
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            subtotal = try container.paddleMoney(.subtotal)
            tax = try container.paddleMoney(.tax)
            total = try container.paddleMoney(.total)
            fee = try container.paddleMoney(.fee)
            earnings = try container.paddleMoney(.earnings)
            currencyCode = try container.paddleCurrency(.currencyCode)
        }
    }

    public init(
        id: String, status: Status, customerID: String? = nil, subscriptionID: String? = nil, origin: Origin = .api,
        customData: [String: String] = [:], currencyCode: String, billedAt: Instant? = nil, createdAt: Instant,
        billingPeriod: PaddleTimePeriod? = nil, items: [Item] = [], details: Details? = nil
    ) {
        self.id = id
        self.status = status
        self.customerID = customerID
        self.subscriptionID = subscriptionID
        self.origin = origin
        self.customData = customData
        self.currencyCode = currencyCode
        self.billedAt = billedAt
        self.createdAt = createdAt
        self.billingPeriod = billingPeriod
        self.items = items
        self.details = details
    }

    enum CodingKeys: String, CodingKey {
        case id, status, origin, items, details
        case customerID = "customer_id"
        case subscriptionID = "subscription_id"
        case customData = "custom_data"
        case currencyCode = "currency_code"
        case billedAt = "billed_at"
        case createdAt = "created_at"
        case billingPeriod = "billing_period"
    }

    /// The most items read: Paddle bills at most 100 per transaction.
    static let maximumItems = 100

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.paddleID(.id)
        status = Status(rawValue: try container.paddleText(.status))
        customerID = try container.paddleIDIfPresent(.customerID)
        subscriptionID = try container.paddleIDIfPresent(.subscriptionID)
        origin = Origin(rawValue: try container.paddleText(.origin))
        customData = try container.paddleCustomData(.customData)
        currencyCode = try container.paddleCurrency(.currencyCode)
        billedAt = try container.paddleInstantIfPresent(.billedAt)
        createdAt = try container.paddleInstant(.createdAt)
        billingPeriod = try container.decodeIfPresent(PaddleTimePeriod.self, forKey: .billingPeriod)
        items = try container.decodeIfPresent([Item].self, forKey: .items) ?? []
        guard items.count <= Self.maximumItems else { throw container.invalid(.items) }
        details = try container.decodeIfPresent(Details.self, forKey: .details)
    }
}
