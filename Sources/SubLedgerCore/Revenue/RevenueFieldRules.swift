/// What the ledger accepts of the price fields Apple sends with a transaction.
///
/// A transaction is worth more than its price: a price, currency or storefront that breaks these rules is
/// stored as NULL (the transaction is kept, reported as unpriced or estimated from the catalog) rather than
/// refused, so a malformed price never costs a customer an entitlement. Schema step 14's backfill applies
/// the same rules to stored payloads, and its CHECK constraints are the last line.
public enum RevenueFieldRules {
    /// The largest price accepted, in milli-units: 10^15 (a trillion units of any currency; Apple's highest
    /// price points are far below, even in currencies such as IDR or VND).
    public static let maximumPriceMilliunits: Int64 = 1_000_000_000_000_000

    /// `price` when it is within 0 ... `maximumPriceMilliunits`, else `nil`.
    public static func price(_ price: Int64?) -> Int64? {
        guard let price, price >= 0, price <= maximumPriceMilliunits else { return nil }
        return price
    }

    /// Whether `code` is three uppercase ASCII letters: ISO 4217 currencies and ISO 3166-1 alpha-3 storefronts.
    public static func isCode(_ code: String) -> Bool {
        code.utf8.count == 3 && code.utf8.allSatisfy { (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains($0) }
    }

    /// `code` when it is a valid three-letter code, else `nil`.
    public static func code(_ code: String?) -> String? {
        guard let code, isCode(code) else { return nil }
        return code
    }

    /// Apple's `offerType` when within what the ledger stores (1 ... 99), else `nil`.
    public static func offerType(_ offerType: Int?) -> Int? {
        guard let offerType, (1...99).contains(offerType) else { return nil }
        return offerType
    }

    /// Apple's `offerDiscountType` when at most 64 bytes, else `nil`.
    public static func offerDiscountType(_ type: String?) -> String? {
        guard let type, !type.isEmpty, type.utf8.count <= 64 else { return nil }
        return type
    }
}
