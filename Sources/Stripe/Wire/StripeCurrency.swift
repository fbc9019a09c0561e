/// Stripe's amounts are integers in a currency's smallest unit: cents for USD, yen for JPY (a zero-decimal
/// currency), a thousandth of a dinar for the three-decimal ones. The ledger keeps prices in milli-units.
public enum StripeCurrency {
    /// Stripe's zero-decimal currencies: an amount is in whole units.
    public static let zeroDecimal: Set<String> = [
        "bif", "clp", "djf", "gnf", "jpy", "kmf", "krw", "mga", "pyg", "rwf", "ugx", "vnd", "vuv", "xaf", "xof", "xpf",
    ]
    /// Stripe's three-decimal currencies.
    public static let threeDecimal: Set<String> = ["bhd", "jod", "kwd", "omr", "tnd"]

    /// The number of minor-unit digits of `currency` (lowercase ISO 4217, as Stripe writes it).
    public static func exponent(of currency: String) -> Int {
        let code = currency.lowercased()
        if zeroDecimal.contains(code) { return 0 }
        if threeDecimal.contains(code) { return 3 }
        return 2
    }

    /// `amount` minor units of `currency` in milli-units; `nil` when it does not fit.
    public static func milliunits(_ amount: Int64, currency: String) -> Int64? {
        let factor: Int64
        switch exponent(of: currency) {
        case 0: factor = 1000
        case 3: factor = 1
        default: factor = 10
        }
        let product = amount.multipliedReportingOverflow(by: factor)
        return product.overflow ? nil : product.partialValue
    }

    /// Whether `code` is a currency code as Stripe writes one: three lowercase letters.
    public static func isCode(_ code: String) -> Bool {
        code.utf8.count == 3 && code.utf8.allSatisfy { (0x61...0x7A).contains($0) }
    }
}
