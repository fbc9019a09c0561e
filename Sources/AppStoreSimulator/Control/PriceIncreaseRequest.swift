/// Announce a price increase of a subscription's auto-renew product, effective at its next renewal.
public struct PriceIncreaseRequest: Sendable, Codable, Hashable {
    /// The new price, milli-units of the product's currency (1 to 10^12).
    public var price: Int64
    /// Whether the customer must consent (`PRICE_INCREASE` `PENDING`; without consent the subscription
    /// expires at its renewal date). Default `true`; `false` is an increase Apple applies without consent
    /// (`ACCEPTED` at once).
    public var requiresConsent: Bool?

    public init(price: Int64, requiresConsent: Bool? = nil) {
        self.price = price
        self.requiresConsent = requiresConsent
    }
}
