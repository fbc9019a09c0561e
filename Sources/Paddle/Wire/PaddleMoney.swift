/// Paddle's money: a string of a currency's smallest unit (`"1099"` is 10.99 USD, `"100"` is 100 JPY), never a
/// JSON number, so no amount is rounded on the way. The ledger keeps prices in milli-units.
public enum PaddleMoney {
    /// The most digits read: 19 is every `Int64` and some more (`"9999999999999999999"` is refused, not wrapped).
    static let maximumDigits = 19

    /// The minor units `text` states: ASCII digits only (no sign, space, exponent or fraction), at most 19 of them,
    /// fitting `Int64`; `nil` otherwise. Paddle states the totals SubLedger reads as non-negative amounts.
    public static func minorUnits(_ text: String) -> Int64? {
        let utf8 = text.utf8
        guard (1...maximumDigits).contains(utf8.count), utf8.allSatisfy({ (0x30...0x39).contains($0) }) else {
            return nil
        }
        // `Int64(_:)` answers nil rather than trapping for a value past `Int64.max`.
        return Int64(text)
    }

    /// `amount` minor units of `currency` in milli-units; `nil` when it does not fit.
    public static func milliunits(_ amount: Int64, currency: String) -> Int64? {
        var factor: Int64 = 1
        for _ in 0..<max(0, 3 - PaddleCurrency.exponent(of: currency)) { factor *= 10 }
        let product = amount.multipliedReportingOverflow(by: factor)
        return product.overflow ? nil : product.partialValue
    }
}

/// Paddle's currency codes: ISO 4217, three uppercase letters (`USD`), as Paddle writes them in every total.
public enum PaddleCurrency {
    /// Currencies of Paddle's whose smallest unit is the whole unit (ISO 4217's zero exponent): an amount of `"100"`
    /// JPY is 100 yen. Paddle's currencies entity states `decimal_places` per currency; these are the ones with 0.
    public static let zeroDecimal: Set<String> = ["JPY", "KRW", "VND"]

    /// The digits after the decimal point of `currency`'s common notation: 0 or 2 for every currency Paddle sells in.
    public static func exponent(of currency: String) -> Int {
        zeroDecimal.contains(currency) ? 0 : 2
    }

    /// Whether `code` is a currency code as Paddle writes one: three uppercase ASCII letters.
    public static func isCode(_ code: String) -> Bool {
        code.utf8.count == 3 && code.utf8.allSatisfy { (0x41...0x5A).contains($0) }
    }
}
