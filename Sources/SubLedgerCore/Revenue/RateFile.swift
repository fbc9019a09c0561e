/// The two rate files: exchange rates (`date,currency,rate`) and tax rates (`storefront,effective_from,rate`).
///
/// Plain CSV: one record per line, three fields separated by commas, no quoting (no field can contain a
/// comma); blank lines and lines starting with `#` are skipped; a first line whose third field is not a
/// number is a header and skipped. Every other line must parse, or the whole file is refused with the line's
/// number, so a file is applied entirely or not at all.
public enum RateFile {
    /// One exchange rate: on `day`, one unit of `currency` is worth `rate` units of the reporting currency.
    public struct ExchangeRate: Hashable, Sendable {
        public var day: Int64
        public var currency: String
        /// The rate as written (at most 12 fraction digits), for exact storage in `numeric`.
        public var rateText: String

        public init(day: Int64, currency: String, rateText: String) {
            self.day = day
            self.currency = currency
            self.rateText = rateText
        }
    }

    /// One tax rate: from `day` on, `ppm` of a customer price in `storefront` is tax.
    public struct TaxRate: Hashable, Sendable {
        public var storefront: String
        public var day: Int64
        public var ppm: Int64

        public init(storefront: String, day: Int64, ppm: Int64) {
            self.storefront = storefront
            self.day = day
            self.ppm = ppm
        }
    }

    /// The most lines a file may hold.
    public static let maximumLines = 1_000_000

    /// Parses an exchange-rate file: `date,currency,rate`, with `rate` > 0.
    public static func exchangeRates(_ text: String) throws(RevenueInputError) -> [ExchangeRate] {
        var rates: [ExchangeRate] = []
        for (number, fields) in try records(text, header: ["date", "currency", "rate"]) {
            guard let day = CalendarDay.parse(fields[0]) else {
                throw RevenueInputError(.invalidDate, "line \(number): the date must be YYYY-MM-DD")
            }
            guard RevenueFieldRules.isCode(fields[1]) else {
                throw RevenueInputError(.invalidCode, "line \(number): the currency must be three uppercase letters")
            }
            guard let scaled = DecimalText.scaled(fields[2], fractionDigits: 12, maximum: 999_999_999_999 * 1_000_000),
                scaled > 0
            else {
                throw RevenueInputError(
                    .invalidRate,
                    "line \(number): the rate must be a positive decimal (at most 12 decimals, below 10^6)")
            }
            rates.append(ExchangeRate(day: day, currency: fields[1], rateText: fields[2]))
        }
        return rates
    }

    /// Parses a tax-rate file: `storefront,effective_from,rate`, with 0 ≤ `rate` < 1 (the share of the price).
    public static func taxRates(_ text: String) throws(RevenueInputError) -> [TaxRate] {
        var rates: [TaxRate] = []
        for (number, fields) in try records(text, header: ["storefront", "effective_from", "rate"]) {
            guard RevenueFieldRules.isCode(fields[0]) else {
                throw RevenueInputError(.invalidCode, "line \(number): the storefront must be three uppercase letters")
            }
            guard let day = CalendarDay.parse(fields[1]) else {
                throw RevenueInputError(.invalidDate, "line \(number): effective_from must be YYYY-MM-DD")
            }
            guard let ppm = DecimalText.scaled(fields[2], fractionDigits: 6, maximum: 999_999) else {
                throw RevenueInputError(
                    .invalidRate, "line \(number): the rate must be a decimal from 0 to below 1, at most 6 decimals")
            }
            rates.append(TaxRate(storefront: fields[0], day: day, ppm: ppm))
        }
        return rates
    }

    /// The data lines of `text` with their 1-based numbers, each exactly three trimmed fields.
    private static func records(_ text: String, header: [String]) throws(RevenueInputError) -> [(Int, [String])] {
        var result: [(Int, [String])] = []
        var number = 0
        // "\r\n" is one Character in Swift: split on every line ending, not on "\n" alone.
        for line in text.split(
            omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" || $0 == "\r" })
        {
            number += 1
            guard number <= maximumLines else {
                throw RevenueInputError(.malformedFile, "the file has more than \(maximumLines) lines")
            }
            let trimmed = line.trimmingSpaces
            if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
            let fields = trimmed.split(separator: ",", omittingEmptySubsequences: false).map { $0.trimmingSpaces }
            guard fields.count == 3 else {
                throw RevenueInputError(
                    .malformedFile,
                    "line \(number): expected 3 fields (\(header.joined(separator: ","))), found \(fields.count)")
            }
            if result.isEmpty, fields.map({ $0.lowercased() }) == header { continue }
            result.append((number, fields))
        }
        guard !result.isEmpty else {
            throw RevenueInputError(.malformedFile, "the file has no data lines (\(header.joined(separator: ",")))")
        }
        return result
    }
}

extension Substring {
    /// Without leading and trailing spaces, tabs and carriage returns.
    fileprivate var trimmingSpaces: String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}

extension String {
    fileprivate var trimmingSpaces: String { self[...].trimmingSpaces }
}
