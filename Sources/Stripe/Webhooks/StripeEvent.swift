import SubLedgerCore

/// A Stripe event as a webhook delivers it (and `/v1/events` lists it): what happened, and a snapshot of the object
/// it happened to. SubLedger reads only what links the object to a subscription or a one-time payment: the snapshot
/// is a hint, and the state is read back from the API.
public struct StripeEvent: Decodable, Sendable, Hashable {
    /// `evt_…`: stored once per id.
    public var id: String
    /// `customer.subscription.updated`, `invoice.paid`, `charge.refunded`, …
    public var type: String
    public var created: Int64
    public var livemode: Bool
    public var object: EventObject

    /// The fields of `data.object` that lead to a subscription or a payment.
    public struct EventObject: Decodable, Sendable, Hashable {
        /// `subscription`, `invoice`, `checkout.session`, `charge`, `refund`, `dispute`, `payment_intent`,
        /// `invoice_payment`, …
        public var object: String
        public var id: String?
        /// A Checkout Session's subscription.
        public var subscription: StripeReference?
        /// A charge's, refund's or dispute's payment intent; a Checkout Session's in `payment` mode.
        public var paymentIntent: StripeReference?
        /// An invoice payment's invoice.
        public var invoice: StripeReference?
        /// An invoice's parent.
        public var parent: StripeInvoice.Parent?
        /// A Checkout Session's reference (SubLedger puts the order there).
        public var clientReferenceID: String?

        enum CodingKeys: String, CodingKey {
            case object, id, subscription, invoice, parent
            case paymentIntent = "payment_intent"
            case clientReferenceID = "client_reference_id"
        }
    }

    private struct EventData: Decodable, Sendable {
        var object: EventObject
    }

    enum CodingKeys: String, CodingKey {
        case id, type, created, livemode, data
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        type = try container.decode(String.self, forKey: .type)
        created = try container.decode(Int64.self, forKey: .created)
        livemode = try container.decodeIfPresent(Bool.self, forKey: .livemode) ?? false
        object = try container.decode(EventData.self, forKey: .data).object
    }

    /// When the event happened, or `nil` when `created` (seconds) lies outside the instants SubLedger accepts.
    public var createdAt: Instant? {
        let milliseconds = created.multipliedReportingOverflow(by: 1000)
        return milliseconds.overflow ? nil : Instant(acceptedMillisecondsSince1970: milliseconds.partialValue)
    }

    /// What the event is about, as far as the ledger follows it.
    public enum Subject: Sendable, Hashable {
        /// A subscription, named directly (a subscription's, an invoice's or a Checkout Session's event).
        case subscription(String)
        /// A payment intent: the subscription is found through the invoice it paid; one that paid no invoice is a
        /// one-time purchase.
        case paymentIntent(String)
        /// An invoice: the subscription is found by reading it.
        case invoice(String)
        /// Nothing the ledger follows (a customer, a product, …).
        case none
    }

    /// Where the event leads.
    public var subject: Subject {
        switch object.object {
        case "subscription":
            if let id = object.id { return .subscription(id) }
        case "invoice":
            if let subscription = object.parent?.subscriptionDetails?.subscription?.id {
                return .subscription(subscription)
            }
        case "checkout.session":
            if let subscription = object.subscription?.id { return .subscription(subscription) }
            if let intent = object.paymentIntent?.id { return .paymentIntent(intent) }
        case "invoice_payment":
            if let invoice = object.invoice?.id { return .invoice(invoice) }
        case "charge", "refund", "dispute":
            if let intent = object.paymentIntent?.id { return .paymentIntent(intent) }
        case "payment_intent":
            if let id = object.id { return .paymentIntent(id) }
        default:
            break
        }
        return .none
    }
}
