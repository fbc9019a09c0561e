/// A Stripe invoice: one billing of a subscription (its first, a renewal, a plan change's proration).
public struct StripeInvoice: Decodable, Sendable, Hashable {
    /// `in_…`: a transaction of the chain once paid.
    public var id: String
    public var customer: StripeReference?
    /// `draft`, `open`, `paid`, `uncollectible`, `void`.
    public var status: String?
    /// `subscription_create`, `subscription_cycle`, `subscription_update`, `manual`, …
    public var billingReason: String?
    public var amountPaid: Int64
    public var total: Int64?
    public var currency: String
    public var created: Int64
    public var livemode: Bool
    public var lines: StripeList<Line>
    public var parent: Parent?
    public var statusTransitions: StatusTransitions?
    /// The taxes of the invoice's total (`total_taxes`, API 2025-03-31.basil on), one per tax rate or Stripe Tax
    /// jurisdiction; empty when nothing was taxed, absent where the version states none.
    public var totalTaxes: [Tax]?
    /// Its payments, when the request expanded them (`expand[]=payments`, `data.payments` in a list): Stripe includes
    /// the first handful, which is every payment of an invoice paid once or retried a few times.
    public var payments: StripeList<StripeInvoicePayment>?

    /// What the invoice bills for; for a subscription, its id.
    public struct Parent: Decodable, Sendable, Hashable {
        public var subscriptionDetails: SubscriptionDetails?

        public struct SubscriptionDetails: Decodable, Sendable, Hashable {
            public var subscription: StripeReference?
            public var metadata: [String: String]?
        }

        enum CodingKeys: String, CodingKey {
            case subscriptionDetails = "subscription_details"
        }
    }

    public struct StatusTransitions: Decodable, Sendable, Hashable {
        public var paidAt: Int64?
        public var voidedAt: Int64?

        enum CodingKeys: String, CodingKey {
            case paidAt = "paid_at"
            case voidedAt = "voided_at"
        }
    }

    public struct Tax: Decodable, Sendable, Hashable {
        public var amount: Int64
    }

    /// One line: an amount for a period of one price (a proration's line is negative for the unused time of the
    /// price it replaces).
    public struct Line: Decodable, Sendable, Hashable {
        public var id: String?
        public var amount: Int64
        public var period: Period?
        public var pricing: Pricing?

        public struct Period: Decodable, Sendable, Hashable {
            public var start: Int64
            public var end: Int64
        }

        public struct Pricing: Decodable, Sendable, Hashable {
            public var priceDetails: PriceDetails?

            public struct PriceDetails: Decodable, Sendable, Hashable {
                public var price: StripeReference?
                public var product: String?
            }

            enum CodingKeys: String, CodingKey {
                case priceDetails = "price_details"
            }
        }
    }

    enum CodingKeys: String, CodingKey {
        case id, customer, status, total, currency, created, livemode, lines, parent
        case billingReason = "billing_reason"
        case amountPaid = "amount_paid"
        case statusTransitions = "status_transitions"
        case totalTaxes = "total_taxes"
        case payments
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        customer = try container.decodeIfPresent(StripeReference.self, forKey: .customer)
        status = try container.decodeIfPresent(String.self, forKey: .status)
        billingReason = try container.decodeIfPresent(String.self, forKey: .billingReason)
        amountPaid = try container.decodeIfPresent(Int64.self, forKey: .amountPaid) ?? 0
        total = try container.decodeIfPresent(Int64.self, forKey: .total)
        currency = try container.decode(String.self, forKey: .currency)
        created = try container.decode(Int64.self, forKey: .created)
        livemode = try container.decodeIfPresent(Bool.self, forKey: .livemode) ?? false
        lines =
            try container.decodeIfPresent(StripeList<Line>.self, forKey: .lines) ?? StripeList(data: [], hasMore: false)
        parent = try container.decodeIfPresent(Parent.self, forKey: .parent)
        statusTransitions = try container.decodeIfPresent(StatusTransitions.self, forKey: .statusTransitions)
        totalTaxes = try container.decodeIfPresent([Tax].self, forKey: .totalTaxes)
        payments = try container.decodeIfPresent(StripeList<StripeInvoicePayment>.self, forKey: .payments)
    }

    /// The tax Stripe states on this invoice (the sum of `total_taxes`) in milli-units of its currency, zero-decimal and
    /// three-decimal currencies included; `nil` when the invoice states no taxes, or when a tax is negative or the sum
    /// is more than what was paid (out of range: not a tax of this sale).
    public var taxMilliunits: Int64? {
        guard let taxes = totalTaxes else { return nil }
        var sum: Int64 = 0
        for tax in taxes {
            guard tax.amount >= 0 else { return nil }
            let added = sum.addingReportingOverflow(tax.amount)
            guard !added.overflow else { return nil }
            sum = added.partialValue
        }
        guard sum <= amountPaid else { return nil }
        return StripeCurrency.milliunits(sum, currency: currency)
    }

    /// The subscription the invoice bills, if it bills one.
    public var subscriptionID: String? { parent?.subscriptionDetails?.subscription?.id }
}
