/// A sale split into what the customer paid, the tax in it, the store's commission (Apple's, Google Play's), the
/// payment processor's fee and the developer's proceeds, all in milli-units of the sale's currency.
///
/// tax = round(price × taxRate); commission = round((price − tax) × commissionRate); fee as the processor states it
/// (Stripe's, on a web sale; 0 in the stores, whose commission is their whole cut);
/// proceeds = price − tax − commission − fee. Rounding is half away from zero, to the milli-unit, so the parts
/// always add up to the price.
public struct Proceeds: Hashable, Sendable, Codable {
    public var price: Int64
    public var tax: Int64
    public var commission: Int64
    /// The payment processor's fee (Stripe's processing fee); 0 for a store's sale and for a refund (Stripe keeps
    /// the fee of a refunded charge).
    public var fee: Int64
    public var proceeds: Int64

    public init(price: Int64, tax: Int64, commission: Int64, fee: Int64 = 0, proceeds: Int64) {
        self.price = price
        self.tax = tax
        self.commission = commission
        self.fee = fee
        self.proceeds = proceeds
    }

    /// The split of `price` with `taxPPM` (the share of the price that is tax), `commissionPPM` and the processor's
    /// `fee`.
    public static func of(price: Int64, taxPPM: Int64, commissionPPM: Int64, fee: Int64 = 0) -> Proceeds {
        let tax = share(price, ppm: taxPPM)
        let commission = share(price - tax, ppm: commissionPPM)
        return Proceeds(
            price: price, tax: tax, commission: commission, fee: fee, proceeds: price - tax - commission - fee)
    }

    /// The split of `price` whose tax is stated (`tax`, milli-units: Stripe's), with `commissionPPM` and the
    /// processor's `fee`; the tax is kept within 0…price.
    public static func of(price: Int64, tax: Int64, commissionPPM: Int64, fee: Int64 = 0) -> Proceeds {
        let tax = price >= 0 ? min(max(0, tax), price) : max(min(0, tax), price)
        let commission = share(price - tax, ppm: commissionPPM)
        return Proceeds(
            price: price, tax: tax, commission: commission, fee: fee, proceeds: price - tax - commission - fee)
    }

    /// The share of a stated `tax` that `part` of `whole` carries: round(tax × part / whole), half away from zero
    /// (a refund's or a credit's tax, as its price is a share of the sale's); 0 when `whole` is not positive.
    public static func taxShare(_ tax: Int64, part: Int64, of whole: Int64) -> Int64 {
        guard whole > 0 else { return 0 }
        let (high, low) = tax.multipliedFullWidth(by: part)
        let (quotient, remainder) = whole.dividingFullWidth((high, low))
        if remainder.magnitude * 2 >= whole.magnitude { return quotient + (remainder < 0 ? -1 : 1) }
        return quotient
    }

    /// round(`amount` × `ppm` / 10^6), half away from zero, without overflow for prices up to 10^15.
    static func share(_ amount: Int64, ppm: Int64) -> Int64 {
        let product = amount.multipliedFullWidth(by: ppm)
        let (quotient, remainder) = Int64.million.dividingFullWidth(product)
        if remainder.magnitude * 2 >= 1_000_000 { return quotient + (remainder < 0 ? -1 : 1) }
        return quotient
    }
}

extension Int64 {
    fileprivate static let million: Int64 = 1_000_000
}
