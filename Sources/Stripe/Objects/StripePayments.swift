/// How an invoice was paid: one payment (a payment intent) of it.
public struct StripeInvoicePayment: Decodable, Sendable, Hashable {
    public var id: String
    public var invoice: StripeReference
    /// `open`, `paid`, `canceled`.
    public var status: String?
    public var amountPaid: Int64?
    public var payment: Payment

    public struct Payment: Decodable, Sendable, Hashable {
        /// `payment_intent` or `charge`.
        public var type: String
        public var paymentIntent: StripeReference?
        public var charge: StripeReference?

        enum CodingKeys: String, CodingKey {
            case type
            case paymentIntent = "payment_intent"
            case charge
        }
    }

    enum CodingKeys: String, CodingKey {
        case id, invoice, status, payment
        case amountPaid = "amount_paid"
    }
}

/// A payment intent: the attempt to collect an amount, and the charge that collected it. A one-time purchase's (a
/// Checkout Session in `payment` mode) carries SubLedger's order in its `metadata`.
public struct StripePaymentIntent: Decodable, Sendable, Hashable {
    public var id: String
    /// `requires_payment_method`, `requires_confirmation`, `requires_action`, `processing`, `requires_capture`,
    /// `canceled`, `succeeded`.
    public var status: String?
    public var latestCharge: StripeReference?
    public var amount: Int64?
    public var currency: String?
    public var customer: StripeReference?
    public var metadata: [String: String]
    public var created: Int64?
    public var livemode: Bool

    public init(
        id: String, status: String?, latestCharge: StripeReference?, amount: Int64? = nil, currency: String? = nil,
        customer: StripeReference? = nil, metadata: [String: String] = [:], created: Int64? = nil,
        livemode: Bool = false
    ) {
        self.id = id
        self.status = status
        self.latestCharge = latestCharge
        self.amount = amount
        self.currency = currency
        self.customer = customer
        self.metadata = metadata
        self.created = created
        self.livemode = livemode
    }

    enum CodingKeys: String, CodingKey {
        case id, status, amount, currency, customer, metadata, created, livemode
        case latestCharge = "latest_charge"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        status = try container.decodeIfPresent(String.self, forKey: .status)
        latestCharge = try container.decodeIfPresent(StripeReference.self, forKey: .latestCharge)
        amount = try container.decodeIfPresent(Int64.self, forKey: .amount)
        currency = try container.decodeIfPresent(String.self, forKey: .currency)
        customer = try container.decodeIfPresent(StripeReference.self, forKey: .customer)
        metadata = try container.decodeIfPresent([String: String].self, forKey: .metadata) ?? [:]
        created = try container.decodeIfPresent(Int64.self, forKey: .created)
        livemode = try container.decodeIfPresent(Bool.self, forKey: .livemode) ?? false
    }
}

/// A charge: money taken from a card, and what was later refunded or disputed of it.
public struct StripeCharge: Decodable, Sendable, Hashable {
    public var id: String
    public var amount: Int64
    public var amountRefunded: Int64
    public var refunded: Bool
    public var disputed: Bool
    public var currency: String
    public var created: Int64
    public var status: String?
    public var paymentIntent: StripeReference?
    public var balanceTransaction: StripeReference?
    /// The balance transaction itself, when the request expanded it (`expand[]=balance_transaction`, or
    /// `data.balance_transaction` in a list): what the charge added to the balance and Stripe's fee on it.
    public var balanceTransactionDetails: StripeBalanceTransaction?

    enum CodingKeys: String, CodingKey {
        case id, amount, refunded, disputed, currency, created, status
        case amountRefunded = "amount_refunded"
        case paymentIntent = "payment_intent"
        case balanceTransaction = "balance_transaction"
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        amount = try container.decode(Int64.self, forKey: .amount)
        amountRefunded = try container.decodeIfPresent(Int64.self, forKey: .amountRefunded) ?? 0
        refunded = try container.decodeIfPresent(Bool.self, forKey: .refunded) ?? false
        disputed = try container.decodeIfPresent(Bool.self, forKey: .disputed) ?? false
        currency = try container.decode(String.self, forKey: .currency)
        created = try container.decode(Int64.self, forKey: .created)
        status = try container.decodeIfPresent(String.self, forKey: .status)
        paymentIntent = try container.decodeIfPresent(StripeReference.self, forKey: .paymentIntent)
        balanceTransaction = try container.decodeIfPresent(StripeReference.self, forKey: .balanceTransaction)
        // A string is the id alone; an object is the expanded balance transaction.
        balanceTransactionDetails = try? container.decodeIfPresent(
            StripeBalanceTransaction.self, forKey: .balanceTransaction)
    }

    /// Stripe's fee on this charge in milli-units of the charge's currency, from its expanded balance transaction;
    /// `nil` when the balance transaction was not read, is in another currency (the account settles in a currency
    /// other than the customer's), or states a fee out of range.
    public var feeMilliunits: Int64? {
        guard let balance = balanceTransactionDetails, balance.fee >= 0,
            balance.currency.lowercased() == currency.lowercased()
        else { return nil }
        return StripeCurrency.milliunits(balance.fee, currency: currency)
    }
}

/// A refund of (part of) a charge.
public struct StripeRefund: Decodable, Sendable, Hashable {
    public var id: String
    public var amount: Int64
    public var charge: StripeReference?
    public var created: Int64
    /// `pending`, `requires_action`, `succeeded`, `failed`, `canceled`.
    public var status: String?
}

/// A dispute (chargeback) the cardholder's bank opened on a charge.
public struct StripeDispute: Decodable, Sendable, Hashable {
    public var id: String
    public var amount: Int64
    public var charge: StripeReference?
    public var created: Int64
    /// `warning_needs_response`, `warning_under_review`, `warning_closed`, `needs_response`, `under_review`, `won`,
    /// `lost`.
    public var status: String
}

/// A balance transaction: what a charge (or refund) moved in the balance, and Stripe's fee on it.
public struct StripeBalanceTransaction: Decodable, Sendable, Hashable {
    public var id: String
    public var amount: Int64
    public var fee: Int64
    public var currency: String
}
