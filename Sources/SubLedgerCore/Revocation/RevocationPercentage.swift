/// Apple's `revocationPercentage`: the share of a transaction's price a refund gave back, in thousandths of a
/// percent (`0...100_000`; 67 932 is 67.932 %). Apple states it on StoreKit 2 transactions refunded in part
/// (`revocationType` `REFUND_PRORATED`: an auto-renewable by the time left in its period, other products by
/// the consumption the app reported) and may state 100 000 on a full refund; receipts never state it.
///
/// Only money follows the percentage: access ends at the revocation date whatever the share refunded
/// (`Revocation`), and a consumable's credits are taken back whole.
public enum RevocationPercentage {
    /// The whole price: 100 %.
    public static let whole = 100_000

    /// `value` when within `0...whole`, else `nil` (the refund then counts as whole).
    public static func checked(_ value: Int?) -> Int? {
        guard let value, (0...whole).contains(value) else { return nil }
        return value
    }

    /// The refunded part of `price` (milli-units, not negative): price × percentage ÷ 100 000, rounded half up;
    /// the whole price when the percentage is `nil` (not stated) or out of range.
    public static func refunded(of price: Int64, percentage: Int?) -> Int64 {
        guard let percentage = checked(percentage), percentage < whole, price > 0 else { return max(price, 0) }
        let (high, low) = price.multipliedFullWidth(by: Int64(percentage))
        let (quotient, remainder) = Int64(whole).dividingFullWidth((high, low))
        return quotient + (remainder * 2 >= Int64(whole) ? 1 : 0)
    }
}
