/// A Checkout Session: Stripe's hosted payment page for one order, and what it created once paid.
public struct StripeCheckoutSession: Decodable, Sendable, Hashable {
    /// `cs_…`.
    public var id: String
    /// The page to send the customer to (while `open`).
    public var url: String?
    /// `open`, `complete`, `expired`.
    public var status: String?
    /// `subscription` or `payment`.
    public var mode: String
    /// SubLedger's order.
    public var clientReferenceID: String?
    /// What a `subscription`-mode session created once paid.
    public var subscription: StripeReference?
    /// What a `payment`-mode session created once paid: the one-time purchase.
    public var paymentIntent: StripeReference?
    public var customer: StripeReference?
    public var expiresAt: Int64?
    /// The session's currency (lowercase).
    public var currency: String?
    /// The session's total, in the currency's minor units: what the customer was asked to pay, tax included.
    public var amountTotal: Int64?
    /// The session's discounts, shipping and tax.
    public var totalDetails: TotalDetails?

    /// `total_details`: of a session's total, what is discount, shipping and tax (in minor units).
    public struct TotalDetails: Decodable, Sendable, Hashable {
        public var amountTax: Int64?

        enum CodingKeys: String, CodingKey {
            case amountTax = "amount_tax"
        }
    }

    enum CodingKeys: String, CodingKey {
        case id, url, status, mode, subscription, customer, currency
        case amountTotal = "amount_total"
        case totalDetails = "total_details"
        case clientReferenceID = "client_reference_id"
        case paymentIntent = "payment_intent"
        case expiresAt = "expires_at"
    }
}
