import Foundation
import SeededRandom

/// What a world's revenue and MRR reports must say, computed by the test from the simulators' own records (the
/// price each sale was charged at, what each refund gave back, the processor's fee) with the rules
/// docs/explanation/revenue.md states, in milli-units per currency. It shares no code with `SubLedgerCore`'s
/// `Proceeds`, `RefundAmount` or `MRRSeries`: where the two disagree, one of them is wrong.
enum SimulationMoney {
    /// A world's prices, one per world, in milli-units: a two-, a zero- and a three-decimal currency.
    static let prices: [(milli: Int64, currency: String)] = [(9_990, "USD"), (1_100_000, "JPY"), (2_990, "KWD")]

    /// The world of `seed`'s price: drawn from a generator of its own, apart from the setup's and the plan's.
    static func price(seed: UInt64) -> (milli: Int64, currency: String) {
        var random = SplitMix64(seed: seed ^ 0x5EED_C0DE_0000_0001)
        return prices[Int(random.next() % UInt64(prices.count))]
    }

    /// The first day of the month after the one holding `now` (milliseconds), as `YYYY-MM-DD`: the MRR report's `to`.
    static func monthAfter(_ now: Int64) -> String {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let date = Date(timeIntervalSince1970: Double(now) / 1000)
        var components = calendar.dateComponents([.year, .month], from: date)
        components.month = (components.month ?? 1) + 1
        components.day = 1
        let next = calendar.date(from: components) ?? date
        return String(
            format: "%04d-%02d-01", calendar.component(.year, from: next), calendar.component(.month, from: next))
    }

    /// One sale SubLedger was told of, with what the store charged for it and gave back.
    struct Sale: Sendable {
        var id: String
        /// The subscriber: its chain (App Store, Google Play) or subscription (Stripe).
        var subscriber: String
        var purchase: Int64
        /// The end of the period it pays for.
        var expires: Int64
        /// The store's price, milli-units of `currency`; nil when no statement SubLedger read gives one.
        var price: Int64?
        var currency: String
        /// The store's commission on the sale, in hundredths of a percent (3,000 is 30 %).
        var commissionRate: Int64 = 0
        /// The payment processor's fee (Stripe's), milli-units.
        var fee: Int64 = 0
        /// Refunded in full at this instant: the sale's period is taken back then.
        var revokedAt: Int64?
        /// What refunds of part of the sale gave back, milli-units (Stripe's partial refunds), and how many.
        var partiallyRefunded: Int64 = 0
        var partialRefunds = 0
        /// The product sold: an App Store sale whose period the subscriber's next sale, of another product, cut short
        /// (an upgrade or crossgrade) gives the unused part back.
        var product = ""
        /// The store credits the unused part of a period cut short by another product (the App Store).
        var creditsUnusedTime = false
        /// The share a refund in full gave back, thousandths of a percent, where the store stated one (an App Store
        /// prorated refund); nil: the whole price.
        var refundShare: Int?
    }

    /// One currency's totals, as the revenue report's `totals` state them.
    struct Totals: Equatable, Sendable, CustomStringConvertible {
        var sales = 0
        var gross: Int64 = 0
        var refunds = 0
        var refunded: Int64 = 0
        var commission: Int64 = 0
        var fee: Int64 = 0
        var proceeds: Int64 = 0

        var description: String {
            "\(sales) sales, gross \(gross), \(refunds) refunds of \(refunded), commission \(commission), "
                + "fee \(fee), proceeds \(proceeds)"
        }
    }

    /// `amount` × `rate` ÷ 10,000, rounded half away from zero (amounts here are never negative).
    static func share(_ amount: Int64, rate: Int64) -> Int64 { (amount * rate * 2 + 10_000) / 20_000 }

    /// The revenue report's totals over every sale: gross the prices, refunds the full refunds' prices and the
    /// partial refunds' amounts, the commission net of what full refunds take back at the sale's rate (no tax is
    /// configured in the worlds), the fee never given back, proceeds what is left.
    static func totals(_ sales: [Sale]) -> [String: Totals] {
        var result: [String: Totals] = [:]
        let credits = upgradeCredits(sales)
        for sale in sales {
            guard let price = sale.price else { continue }
            var totals = result[sale.currency] ?? Totals()
            let commission = share(price, rate: sale.commissionRate)
            totals.sales += 1
            totals.gross += price
            totals.fee += sale.fee
            if sale.revokedAt != nil {
                // A prorated refund gives back price × share ÷ 100,000, rounded half up; the commission keeps its
                // share of what was not given back.
                let refunded = sale.refundShare.map { (price * Int64($0) + 50_000) / 100_000 } ?? price
                totals.refunds += 1
                totals.refunded += refunded
                totals.commission += commission - share(refunded, rate: sale.commissionRate)
            } else if let credit = credits[sale.id] {
                totals.refunds += 1
                totals.refunded += credit
                totals.commission += commission - share(credit, rate: sale.commissionRate)
            } else {
                totals.commission += commission
                totals.refunds += sale.partialRefunds
                totals.refunded += sale.partiallyRefunded
                totals.commission -= share(sale.partiallyRefunded, rate: sale.commissionRate)
            }
            result[sale.currency] = totals
        }
        for (currency, totals) in result {
            result[currency]?.proceeds = totals.gross - totals.refunded - totals.commission - totals.fee
        }
        return result
    }

    /// The revenue report's per-currency totals, from its JSON.
    static func reportedTotals(_ json: [String: Any]) -> [String: Totals] {
        var result: [String: Totals] = [:]
        for row in json["totals"] as? [[String: Any]] ?? [] {
            guard let currency = row["currency"] as? String, let amounts = row["amounts"] as? [String: Any] else {
                continue
            }
            func number(_ key: String) -> Int64 { (amounts[key] as? NSNumber)?.int64Value ?? 0 }
            result[currency] = Totals(
                sales: Int(number("sales")), gross: number("gross_milli"), refunds: Int(number("refunds")),
                refunded: number("refunds_milli"), commission: number("commission_milli"),
                fee: number("processing_fee_milli"), proceeds: number("proceeds_milli"))
        }
        return result
    }

    /// What each upgraded-from sale gives back (revenue.md, "Refunds"): a priced sale not refunded, where the store
    /// credits unused time, whose subscriber's next sale is of another product and began inside its period, gives back
    /// price × (end − next purchase) ÷ (end − purchase), rounded half up.
    static func upgradeCredits(_ sales: [Sale]) -> [String: Int64] {
        var result: [String: Int64] = [:]
        for subscriber in Dictionary(grouping: sales, by: \.subscriber).values {
            let ordered = subscriber.sorted { ($0.purchase, $0.id) < ($1.purchase, $1.id) }
            for (index, sale) in ordered.enumerated() where index + 1 < ordered.count {
                let next = ordered[index + 1]
                guard sale.creditsUnusedTime, sale.revokedAt == nil, let price = sale.price,
                    next.product != sale.product, next.purchase > sale.purchase, next.purchase < sale.expires
                else { continue }
                let whole = sale.expires - sale.purchase
                result[sale.id] = (price * (sale.expires - next.purchase) * 2 + whole) / (2 * whole)
            }
        }
        return result
    }

    /// Each sale's end of service: its period's end, or the start of the subscriber's next sale when that began
    /// inside the period of a sale not refunded in full (an upgrade, a replaced Google Play token, a resubscription after
    /// a refund not heard of yet).
    static func servedUntil(_ sales: [Sale]) -> [String: Int64] {
        var result: [String: Int64] = [:]
        for subscriber in Dictionary(grouping: sales, by: \.subscriber).values {
            let ordered = subscriber.sorted { ($0.purchase, $0.id) < ($1.purchase, $1.id) }
            for (index, sale) in ordered.enumerated() {
                result[sale.id] = sale.expires
                guard sale.revokedAt == nil, index + 1 < ordered.count else { continue }
                let next = ordered[index + 1].purchase
                if next > sale.purchase, next < sale.expires { result[sale.id] = next }
            }
        }
        return result
    }

    /// A sale's price as a month's: a period of 6 to 8 whole days is a week (× 52 ÷ 12); any other a whole number of
    /// months of 30.436875 days, rounded, at least one (price ÷ months), each rounded half up to the milli-unit.
    static func monthly(_ price: Int64, purchase: Int64, expires: Int64) -> Int64 {
        let length = expires - purchase
        if (6...8).contains(length / 86_400_000) { return (price * 52 + 6) / 12 }
        let months = max(1, (length + 1_314_873_000) / 2_629_746_000)
        return (price + months / 2) / months
    }

    /// The App Store's commission rate for each of one chain's sales: 15 % once the subscriber had a year of paid
    /// service in the group before the sale, else 30 %. Paid service is the sum of the priced, unrefunded periods served
    /// (`servedUntil`); a paid period starting more than 60 days after the last paid one ended starts the count again.
    static func appStoreRates(_ chain: [Sale]) -> [String: Int64] {
        let day: Int64 = 86_400_000
        var accrued: Int64 = 0
        var lastEnd: Int64?
        var rates: [String: Int64] = [:]
        let served = servedUntil(chain)
        for var sale in chain.sorted(by: { ($0.purchase, $0.id) < ($1.purchase, $1.id) }) {
            sale.expires = served[sale.id] ?? sale.expires
            let paid = sale.price.map { $0 > 0 } ?? false
            let counts = paid && sale.revokedAt == nil
            if counts, let end = lastEnd, sale.purchase - end > 60 * day { accrued = 0 }
            rates[sale.id] = accrued >= 365 * day ? 1_500 : 3_000
            guard counts else { continue }
            accrued += max(0, sale.expires - sale.purchase)
            lastEnd = max(lastEnd ?? sale.expires, sale.expires)
        }
        return rates
    }

    /// One month's MRR in one currency and the subscribers in it.
    struct MonthlyRecurring: Equatable, Sendable, CustomStringConvertible {
        var mrr: Int64 = 0
        var subscribers = 0
        var description: String { "\(mrr) from \(subscribers)" }
    }

    /// MRR per month ("2025-03") and currency, from `firstMonth` through the month holding `now`: at each month's
    /// last millisecond (the current month: at `now`) each subscriber's sale in force (the latest bought at or before
    /// the instant whose service (`servedUntil`) runs past it, not refunded in full by then) counts its price as a
    /// month's (`monthly`); an unpriced one counts nothing.
    static func mrr(_ sales: [Sale], firstMonth: (year: Int, month: Int), now: Int64) -> [String: [String:
        MonthlyRecurring]]
    {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let bySubscriber = Dictionary(grouping: sales, by: \.subscriber)
        let served = servedUntil(sales)
        var result: [String: [String: MonthlyRecurring]] = [:]
        var components = DateComponents(year: firstMonth.year, month: firstMonth.month, day: 1)
        while let start = calendar.date(from: components), Int64(start.timeIntervalSince1970 * 1000) <= now {
            let next = calendar.date(byAdding: .month, value: 1, to: start)!
            let instant = min(Int64(next.timeIntervalSince1970 * 1000) - 1, now)
            let name = String(format: "%04d-%02d", components.year!, components.month!)
            for sales in bySubscriber.values {
                let inForce = sales.filter {
                    $0.purchase <= instant && (served[$0.id] ?? $0.expires) > instant
                        && !($0.revokedAt.map { $0 <= instant } ?? false)
                }.max { ($0.purchase, $0.id) < ($1.purchase, $1.id) }
                guard let sale = inForce, let price = sale.price, price > 0 else { continue }
                let amount = monthly(price, purchase: sale.purchase, expires: sale.expires)
                result[name, default: [:]][sale.currency, default: MonthlyRecurring()].mrr += amount
                result[name, default: [:]][sale.currency, default: MonthlyRecurring()].subscribers += 1
            }
            components = calendar.dateComponents([.year, .month], from: next)
            components.day = 1
        }
        return result
    }

    /// The MRR report's months, from its JSON (rows with MRR above 0).
    static func reportedMRR(_ json: [String: Any]) -> [String: [String: MonthlyRecurring]] {
        var result: [String: [String: MonthlyRecurring]] = [:]
        for row in json["rows"] as? [[String: Any]] ?? [] {
            guard let month = row["month"] as? String, let currency = row["currency"] as? String,
                let mrr = (row["mrr_milli"] as? NSNumber)?.int64Value, mrr > 0
            else { continue }
            result[month, default: [:]][currency] = MonthlyRecurring(
                mrr: mrr, subscribers: (row["subscribers"] as? NSNumber)?.intValue ?? 0)
        }
        return result
    }

    /// The first difference between the model's months and the report's, if any.
    static func mrrDifference(
        expected: [String: [String: MonthlyRecurring]], reported: [String: [String: MonthlyRecurring]]
    ) -> String? {
        for month in Set(expected.keys).union(reported.keys).sorted()
        where expected[month] ?? [:] != reported[month] ?? [:] {
            return
                "MRR of \(month) is \(reported[month] ?? [:]); the simulator's records give \(expected[month] ?? [:])"
        }
        return nil
    }
}
