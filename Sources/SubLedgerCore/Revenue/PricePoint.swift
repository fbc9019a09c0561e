/// A catalog price point: what one purchase of a product cost in a storefront (or in every storefront
/// without its own point) from a day on, until the product's next point for that storefront.
///
/// Used for transactions Apple sent without a price (verifyReceipt never sends one); such amounts are
/// marked estimated in every report. In a catalog file, under a product:
/// `prices: [{currency: USD, price: "9.99", storefront: USA, effective_from: 2026-01-01}]`; `storefront`
/// and `effective_from` are optional (every storefront; since 1970-01-01).
public struct PricePoint: Hashable, Sendable, Codable {
    /// ISO 3166-1 alpha-3 storefront (`USA`), or `nil` for every storefront without its own point.
    public var storefront: String?
    /// ISO 4217 currency (`USD`).
    public var currency: String
    /// The customer price, in milli-units of `currency`.
    public var priceMilliunits: Int64
    /// The first UTC day the point is in force, as days since 1970-01-01.
    public var effectiveFromDay: Int64

    public init(storefront: String?, currency: String, priceMilliunits: Int64, effectiveFromDay: Int64 = 0) {
        self.storefront = storefront
        self.currency = currency
        self.priceMilliunits = priceMilliunits
        self.effectiveFromDay = effectiveFromDay
    }

    enum CodingKeys: String, CodingKey {
        case storefront, currency, price
        case effectiveFrom = "effective_from"
    }

    /// Decodes the catalog file's form; a bad field throws `RevenueInputError` naming it.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        storefront = try container.decodeIfPresent(String.self, forKey: .storefront)
        if let storefront, !RevenueFieldRules.isCode(storefront) {
            throw RevenueInputError(.invalidCode, "price point storefront must be three uppercase letters (USA)")
        }
        currency = try container.decode(String.self, forKey: .currency)
        guard RevenueFieldRules.isCode(currency) else {
            throw RevenueInputError(.invalidCode, "price point currency must be three uppercase letters (USD)")
        }
        // A price may be written as text ("9.99") or a number (9.99): a number is read back through its
        // shortest decimal spelling, which is exact for at most three fraction digits.
        let text: String
        if let string = try? container.decode(String.self, forKey: .price) {
            text = string
        } else if let integer = try? container.decode(Int64.self, forKey: .price) {
            text = String(integer)
        } else {
            text = String(try container.decode(Double.self, forKey: .price))
        }
        guard
            let milliunits = DecimalText.scaled(
                text, fractionDigits: 3, maximum: RevenueFieldRules.maximumPriceMilliunits)
        else {
            throw RevenueInputError(
                .invalidAmount, "price point price must be a non-negative decimal with at most 3 decimals")
        }
        priceMilliunits = milliunits
        if let day = try container.decodeIfPresent(String.self, forKey: .effectiveFrom) {
            guard let parsed = CalendarDay.parse(day) else {
                throw RevenueInputError(.invalidDate, "price point effective_from must be YYYY-MM-DD")
            }
            effectiveFromDay = parsed
        } else {
            effectiveFromDay = 0
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(storefront, forKey: .storefront)
        try container.encode(currency, forKey: .currency)
        try container.encode(DecimalText.milliunits(priceMilliunits), forKey: .price)
        try container.encode(CalendarDay.text(effectiveFromDay), forKey: .effectiveFrom)
    }
}
