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

    enum CodingKeys: String, CodingKey {
        case id, url, status, mode, subscription, customer
        case clientReferenceID = "client_reference_id"
        case paymentIntent = "payment_intent"
        case expiresAt = "expires_at"
    }
}
