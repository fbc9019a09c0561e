import SubLedgerCore

/// A Paddle adjustment: money given back on a billed or completed transaction after the fact — a refund (approved by
/// Paddle first), a credit, a chargeback by the customer's bank or its reversal.
public struct PaddleAdjustment: Decodable, Sendable, Hashable {
    /// `adj_…`
    public var id: String
    public var action: Action
    /// `full` or `partial`; `nil` where Paddle states none (adjustments made before it stated one).
    public var type: AdjustmentType?
    /// `txn_…`: the transaction adjusted.
    public var transactionID: String
    public var subscriptionID: String?
    public var customerID: String?
    public var status: Status
    public var currencyCode: String
    public var totals: Totals
    /// The adjustment in the seller's payout currency; `nil` until Paddle states it.
    public var payoutTotals: PayoutTotals?
    public var createdAt: Instant
    /// When it last changed (a refund's approval); `nil` where not stated.
    public var updatedAt: Instant?

    /// `refund`, `credit`, `chargeback`, `chargeback_reverse`, `chargeback_warning`, `credit_reverse`, …; another is
    /// kept as sent.
    public struct Action: RawRepresentable, Sendable, Hashable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let refund = Action(rawValue: "refund")
        public static let credit = Action(rawValue: "credit")
        public static let chargeback = Action(rawValue: "chargeback")
        public static let chargebackReverse = Action(rawValue: "chargeback_reverse")
        public static let chargebackWarning = Action(rawValue: "chargeback_warning")
        public static let creditReverse = Action(rawValue: "credit_reverse")
    }

    /// `full` (the whole transaction) or `partial` (some items, or part of them); another is kept as sent.
    public struct AdjustmentType: RawRepresentable, Sendable, Hashable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let full = AdjustmentType(rawValue: "full")
        public static let partial = AdjustmentType(rawValue: "partial")
    }

    /// `pending_approval`, `approved`, `rejected` or `reversed`; another is kept as sent.
    public struct Status: RawRepresentable, Sendable, Hashable {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let pendingApproval = Status(rawValue: "pending_approval")
        public static let approved = Status(rawValue: "approved")
        public static let rejected = Status(rawValue: "rejected")
        public static let reversed = Status(rawValue: "reversed")
    }

    /// `totals`, in minor units of `currencyCode`.
    public struct Totals: Decodable, Sendable, Hashable {
        public var subtotal: Int64
        public var tax: Int64
        /// Subtotal plus tax: what goes back to the customer.
        public var total: Int64
        /// Paddle's fee given back in proportion.
        public var fee: Int64
        /// The seller's earnings it takes back.
        public var earnings: Int64
        /// The part of `fee` Paddle keeps all the same (`retained_fee`: a chargeback's, for one); `nil` where not
        /// stated, read as none.
        public var retainedFee: Int64?
        public var currencyCode: String

        public init(
            subtotal: Int64, tax: Int64, total: Int64, fee: Int64, earnings: Int64, retainedFee: Int64? = nil,
            currencyCode: String
        ) {
            self.subtotal = subtotal
            self.tax = tax
            self.total = total
            self.fee = fee
            self.earnings = earnings
            self.retainedFee = retainedFee
            self.currencyCode = currencyCode
        }

        enum CodingKeys: String, CodingKey {
            case subtotal, tax, total, fee, earnings
            case retainedFee = "retained_fee"
            case currencyCode = "currency_code"
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            subtotal = try container.paddleMoney(.subtotal)
            tax = try container.paddleMoney(.tax)
            total = try container.paddleMoney(.total)
            fee = try container.paddleMoney(.fee)
            earnings = try container.paddleMoney(.earnings)
            retainedFee = try container.paddleMoneyIfPresent(.retainedFee)
            currencyCode = try container.paddleCurrency(.currencyCode)
        }

        /// The part of Paddle's fee given back to the seller: `fee` less `retainedFee`, never below 0.
        public var returnedFee: Int64 { max(0, fee - min(fee, retainedFee ?? 0)) }
    }

    /// `payout_totals`, in minor units of the seller's payout currency.
    public struct PayoutTotals: Decodable, Sendable, Hashable {
        public var subtotal: Int64
        public var tax: Int64
        public var total: Int64
        public var fee: Int64
        /// The fee the bank charges for a chargeback (`chargeback_fee.amount`); `nil` for others.
        public var chargebackFee: Int64?
        public var earnings: Int64
        public var currencyCode: String

        public init(
            subtotal: Int64, tax: Int64, total: Int64, fee: Int64, chargebackFee: Int64? = nil, earnings: Int64,
            currencyCode: String
        ) {
            self.subtotal = subtotal
            self.tax = tax
            self.total = total
            self.fee = fee
            self.chargebackFee = chargebackFee
            self.earnings = earnings
            self.currencyCode = currencyCode
        }

        enum CodingKeys: String, CodingKey {
            case subtotal, tax, total, fee, earnings
            case chargebackFee = "chargeback_fee"
            case currencyCode = "currency_code"
        }

        struct ChargebackFee: Decodable {
            var amount: Int64
            enum CodingKeys: String, CodingKey { case amount }
            init(from decoder: any Decoder) throws {
                amount = try decoder.container(keyedBy: CodingKeys.self).paddleMoney(.amount)
            }
        }

        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            subtotal = try container.paddleMoney(.subtotal)
            tax = try container.paddleMoney(.tax)
            total = try container.paddleMoney(.total)
            fee = try container.paddleMoney(.fee)
            chargebackFee = try container.decodeIfPresent(ChargebackFee.self, forKey: .chargebackFee)?.amount
            earnings = try container.paddleMoney(.earnings)
            currencyCode = try container.paddleCurrency(.currencyCode)
        }
    }

    public init(
        id: String, action: Action, type: AdjustmentType? = nil, transactionID: String, subscriptionID: String? = nil,
        customerID: String? = nil, status: Status, currencyCode: String, totals: Totals,
        payoutTotals: PayoutTotals? = nil, createdAt: Instant, updatedAt: Instant? = nil
    ) {
        self.id = id
        self.action = action
        self.type = type
        self.transactionID = transactionID
        self.subscriptionID = subscriptionID
        self.customerID = customerID
        self.status = status
        self.currencyCode = currencyCode
        self.totals = totals
        self.payoutTotals = payoutTotals
        self.createdAt = createdAt
        self.updatedAt = updatedAt
    }

    enum CodingKeys: String, CodingKey {
        case id, action, type, status, totals
        case transactionID = "transaction_id"
        case subscriptionID = "subscription_id"
        case customerID = "customer_id"
        case currencyCode = "currency_code"
        case payoutTotals = "payout_totals"
        case createdAt = "created_at"
        case updatedAt = "updated_at"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.paddleID(.id)
        action = Action(rawValue: try container.paddleText(.action))
        type = try container.paddleTextIfPresent(.type).map(AdjustmentType.init(rawValue:))
        transactionID = try container.paddleID(.transactionID)
        subscriptionID = try container.paddleIDIfPresent(.subscriptionID)
        customerID = try container.paddleIDIfPresent(.customerID)
        status = Status(rawValue: try container.paddleText(.status))
        currencyCode = try container.paddleCurrency(.currencyCode)
        totals = try container.decode(Totals.self, forKey: .totals)
        payoutTotals = try container.decodeIfPresent(PayoutTotals.self, forKey: .payoutTotals)
        createdAt = try container.paddleInstant(.createdAt)
        updatedAt = try container.paddleInstantIfPresent(.updatedAt)
    }
}
