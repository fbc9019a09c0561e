/// The currencies Apple accepts as a line item's `reportingCurrency` (its documentation's allowed values).
///
/// A sale priced in one of them is reported in it, with no `exchangeRate`. A sale priced in any other currency
/// is reported converted into EUR or USD, with the `exchangeRate` used: (amount in the pricing currency) ×
/// `exchangeRate` = (amount in the reporting currency), the rate dated within 48 hours of the transaction.
public enum ExternalPurchaseCurrencies {
    public static let reporting: Set<String> = [
        "AED", "AUD", "BGN", "BRL", "CAD", "CHF", "CLP", "CNY", "COP", "CZK", "DKK", "EGP", "EUR", "GBP", "HKD",
        "HUF", "IDR", "ILS", "INR", "JPY", "KRW", "KZT", "MXN", "MYR", "NGN", "NOK", "NZD", "PEN", "PHP", "PKR",
        "PLN", "QAR", "RON", "RUB", "SAR", "SEK", "SGD", "THB", "TRY", "TWD", "TZS", "USD", "VND", "ZAR",
    ]

    /// The currencies a sale in an unlisted currency may be reported in, in the order SubLedger tries them.
    public static let conversionTargets = ["USD", "EUR"]

    /// How far from the transaction the exchange rate's day may be: Apple asks for a rate within 48 hours.
    public static let rateWindowDays: Int64 = 2
}
