import PostgresLibPQ
import SubLedgerCore

/// Gross sales, refunds, net revenue, tax, the store's commission (Apple's, Google Play's), the payment processor's
/// fee (Stripe's) and proceeds per day, week or month, by app,
/// product, storefront and currency (docs/explanation/revenue.md). Amounts are milli-units of the row's currency
/// (`…Milli`).
public struct RevenueReport: Sendable, Hashable, Codable {
    /// The length of one period (UTC): a day, an ISO week from Monday, or a calendar month.
    public enum Granularity: String, Sendable, Hashable, Codable, CaseIterable {
        case day
        case week
        case month
    }

    /// Money amounts, milli-units; refunds and their tax, commission and proceeds are subtracted in the net ones.
    public struct Amounts: Sendable, Hashable, Codable {
        /// Customer prices of the sales (purchases and renewals) in the period.
        public var grossMilli: Int64 = 0
        /// Amounts given back in the period: refunds, and the prorated credit of upgrades (estimated).
        public var refundsMilli: Int64 = 0
        /// gross − refunds.
        public var netMilli: Int64 = 0
        /// Tax in net (the storefront's tax rate, when loaded).
        public var taxMilli: Int64 = 0
        /// The store's commission on net after tax (none on a web sale).
        public var commissionMilli: Int64 = 0
        /// The payment processor's fee on the sales (Stripe's processing fee on a web sale, from the charge's balance
        /// transaction; Paddle's fee), less the part refunds gave back (Paddle's; Stripe keeps its fee).
        public var processingFeeMilli: Int64 = 0
        /// What the developer receives: net − tax − commission − processing fee.
        public var proceedsMilli: Int64 = 0
        /// The part of gross and refunds priced from the catalog or prorated here (not stated by Apple).
        public var estimatedMilli: Int64 = 0
        /// Sales counted in gross (free trials included, at 0).
        public var sales = 0
        /// Refunds and upgrade credits counted in refunds.
        public var refunds = 0

        public init() {}

        mutating func add(sale: Proceeds, estimated: Bool) {
            grossMilli += sale.price
            netMilli += sale.price
            taxMilli += sale.tax
            commissionMilli += sale.commission
            processingFeeMilli += sale.fee
            proceedsMilli += sale.proceeds
            if estimated { estimatedMilli += sale.price }
            sales += 1
        }

        mutating func add(refund: Proceeds, estimated: Bool) {
            refundsMilli += refund.price
            netMilli -= refund.price
            taxMilli -= refund.tax
            commissionMilli -= refund.commission
            processingFeeMilli -= refund.fee
            proceedsMilli -= refund.proceeds
            if estimated { estimatedMilli += refund.price }
            refunds += 1
        }

        /// Adds `count` sales (or refunds) of the same split.
        mutating func add(_ split: Proceeds, refund: Bool, estimated: Bool, count: Int) {
            let times = Int64(count)
            let scaled = Proceeds(
                price: split.price * times, tax: split.tax * times, commission: split.commission * times,
                fee: split.fee * times, proceeds: split.proceeds * times)
            if refund {
                add(refund: scaled, estimated: estimated)
                refunds += count - 1
            } else {
                add(sale: scaled, estimated: estimated)
                sales += count - 1
            }
        }

        mutating func add(_ other: Amounts) {
            grossMilli += other.grossMilli
            refundsMilli += other.refundsMilli
            netMilli += other.netMilli
            taxMilli += other.taxMilli
            commissionMilli += other.commissionMilli
            processingFeeMilli += other.processingFeeMilli
            proceedsMilli += other.proceedsMilli
            estimatedMilli += other.estimatedMilli
            sales += other.sales
            refunds += other.refunds
        }
    }

    /// One period, app, product, storefront and currency.
    public struct Row: Sendable, Hashable, Codable {
        /// The period's first day, `YYYY-MM-DD`.
        public var period: String
        public var bundleID: String
        public var productID: String
        /// Empty when Apple stated none (verifyReceipt).
        public var storefront: String
        public var currency: String
        public var amounts: Amounts
    }

    /// One currency's amounts over one period, or over the whole range.
    public struct CurrencyAmounts: Sendable, Hashable, Codable {
        /// The period's first day, or empty for the whole range.
        public var period: String
        public var currency: String
        public var amounts: Amounts
    }

    /// One payout currency's money over one period as the store that pays out in it states it (Paddle's
    /// `payout_totals`, in its own conversion): sales by their purchase, refunds by the day they were made.
    public struct PayoutAmounts: Sendable, Hashable, Codable {
        /// The period's first day, or empty for the whole range.
        public var period: String
        /// The payout currency.
        public var currency: String
        /// The sales' totals as the customers paid them (tax included), converted by the store.
        public var totalMilli: Int64 = 0
        /// The tax in them.
        public var taxMilli: Int64 = 0
        /// The store's fee on them.
        public var feeMilli: Int64 = 0
        /// What the sales earn the seller: total − tax − fee.
        public var earningsMilli: Int64 = 0
        /// The earnings the period's refunds took back (the fee they gave back already netted in by the store).
        public var refundedEarningsMilli: Int64 = 0
        /// earnings − refunded earnings: what the period adds to the seller's payouts.
        public var netEarningsMilli: Int64 = 0
        public var sales = 0
        public var refunds = 0

        mutating func add(_ other: PayoutAmounts) {
            totalMilli += other.totalMilli
            taxMilli += other.taxMilli
            feeMilli += other.feeMilli
            earningsMilli += other.earningsMilli
            refundedEarningsMilli += other.refundedEarningsMilli
            netEarningsMilli += other.netEarningsMilli
            sales += other.sales
            refunds += other.refunds
        }
    }

    public var from: Instant
    public var to: Instant
    public var granularity: Granularity
    public var rows: [Row]
    /// Per period and currency: the charts' series.
    public var periods: [CurrencyAmounts]
    /// Per currency over the range.
    public var totals: [CurrencyAmounts]
    public var reportingCurrency: String?
    /// Per period in the reporting currency (each amount at the rate of its own day), when asked for.
    public var reportingPeriods: [CurrencyAmounts]?
    /// The whole range in the reporting currency.
    public var reportingTotal: Amounts?
    /// Currencies without a rate on some day (those amounts are left out of the reporting figures).
    public var missingRates: [MissingRate]
    /// Sales in the range that nothing prices (no Apple price, no catalog price point): not in any amount.
    public var unpricedSales: Int
    /// Per period and payout currency, the sales the store states in the seller's payout currency (Paddle's), as
    /// it states them; empty when no store does.
    public var payouts: [PayoutAmounts]
    /// The same per payout currency over the range.
    public var payoutTotals: [PayoutAmounts]
}

extension Reports {
    /// The most periods one revenue report covers.
    public static let maximumRevenuePeriods = 3_700

    /// Revenue over [`from`, `to`): sales by purchase date, refunds by refund date (upgrade credits by the
    /// upgrade moment), per `granularity` period. Commission follows `RevenueSale.sales` (Small Business
    /// Program, a year of paid service); tax the storefront's rate on the purchase day.
    public static func revenue(
        on connection: PostgresConnection, scope: ReportScope, from: Instant, to: Instant,
        granularity: RevenueReport.Granularity, reportingCurrency: String? = nil
    ) throws -> RevenueReport {
        try revenue(
            on: connection, scope: scope, from: from, to: to, granularity: granularity,
            reportingCurrency: reportingCurrency, source: .dayTotals)
    }

    /// `revenue` from the given source (the tests compare the aggregates with the ledger).
    static func revenue(
        on connection: PostgresConnection, scope: ReportScope, from: Instant, to: Instant,
        granularity: RevenueReport.Granularity, reportingCurrency: String?, source: MoneySource
    ) throws -> RevenueReport {
        try ReportError.checkRange(from: from, to: to)
        let store = try ReportStore(on: connection, scope: scope)
        let periodCount =
            ReportCalendar.milliseconds(from: from, to: to) / 86_400_000
            / (granularity == .day ? 1 : granularity == .week ? 7 : 28)
        if periodCount > maximumRevenuePeriods {
            throw ReportError.invalidArgument(
                "the range holds more than \(maximumRevenuePeriods) \(granularity.rawValue)s: use a longer period (--by)"
            )
        }
        let smallBusiness = try store.smallBusinessPeriods()
        let taxes = try store.taxSchedules()
        let bundleIDs = try store.bundleIDs()
        var converter = try reportingCurrency.map {
            CurrencyConverter(reportingCurrency: $0, schedules: try store.exchangeSchedules(into: $0))
        }

        func period(_ day: Int64) -> Int64 {
            switch granularity {
            case .day: day
            case .week: ReportCalendar.weekStart(day)
            case .month: ReportCalendar.monthStart(day)
            }
        }
        struct Key: Hashable {
            var period: Int64, appID: Int64, productID: String, storefront: String, currency: String
        }
        var rows: [Key: RevenueReport.Amounts] = [:]
        var reportingPeriods: [Int64: RevenueReport.Amounts] = [:]
        var unpriced = 0
        /// Records `count` equal splits on `day` (each converted on its own, as each sale would be).
        func record(
            _ proceeds: Proceeds, day: Int64, appID: Int64, productID: String, storefront: String?, currency: String,
            refund: Bool, estimated: Bool, count: Int = 1
        ) {
            let key = Key(
                period: period(day), appID: appID, productID: productID, storefront: storefront ?? "",
                currency: currency)
            rows[key, default: .init()].add(proceeds, refund: refund, estimated: estimated, count: count)
            guard converter != nil else { return }
            func convert(_ amount: Int64) -> Int64? { converter?.convert(amount, from: currency, on: day) }
            guard let price = convert(proceeds.price), let tax = convert(proceeds.tax),
                let commission = convert(proceeds.commission), let fee = convert(proceeds.fee)
            else { return }
            let converted = Proceeds(
                price: price, tax: tax, commission: commission, fee: fee, proceeds: price - tax - commission - fee)
            reportingPeriods[key.period, default: .init()].add(
                converted, refund: refund, estimated: estimated, count: count)
        }

        switch source {
        case .dayTotals, .facts:
            // Sales, refunds and credits grouped by everything their split depends on: one split per group.
            for group in try revenueGroups(
                store: store, from: from.millisecondsSince1970, to: to.millisecondsSince1970, source: source)
            {
                guard let amount = group.amount else {
                    if group.kind == .sale { unpriced += group.count }
                    continue
                }
                guard let currency = group.currency else { continue }
                let basis =
                    group.web
                    ? Commission.Basis.web
                    : Commission.basis(
                        smallBusiness: (smallBusiness[group.appID] ?? []).contains { $0.contains(group.boughtDay) },
                        accruedPaidMilliseconds: group.secondYear ? PaidServiceDays.oneYearMilliseconds : 0)
                // A sale's fee, or the part of it a refund gave back (Paddle's); a credit's is 0.
                let fee = group.fee
                // Stripe states a web sale's tax; the storefront's rate is for the stores' sales.
                let proceeds =
                    if group.web, let stated = group.tax {
                        Proceeds.of(price: amount, tax: stated, commissionPPM: Commission.ppm(basis), fee: fee)
                    } else {
                        Proceeds.of(
                            price: amount,
                            taxPPM: group.storefront.flatMap { taxes[$0]?.value(on: group.boughtDay) } ?? 0,
                            commissionPPM: Commission.ppm(basis), fee: fee)
                    }
                record(
                    proceeds, day: group.day,
                    appID: group.appID, productID: group.productID, storefront: group.storefront, currency: currency,
                    refund: group.kind != .sale, estimated: group.estimated, count: group.count)
            }
        case .ledger:
            for chain in try store.revenueChains(from: from, to: to) {
                let sales = RevenueSale.sales(
                    of: chain.transactions, smallBusiness: smallBusiness[chain.appID] ?? [],
                    taxPPM: { storefront, day in storefront.flatMap { taxes[$0]?.value(on: day) } ?? 0 })
                for sale in sales {
                    let transaction = sale.transaction
                    let inRange = { (instant: Instant) in instant >= from && instant < to }
                    if inRange(transaction.purchaseDate), sale.sale == nil { unpriced += 1 }
                    guard let currency = transaction.currency else { continue }
                    if let proceeds = sale.sale, inRange(transaction.purchaseDate) {
                        record(
                            proceeds, day: CalendarDay.of(transaction.purchaseDate), appID: chain.appID,
                            productID: transaction.productID, storefront: transaction.storefront, currency: currency,
                            refund: false, estimated: transaction.isEstimated)
                    }
                    if let refund = sale.refund, let date = sale.refundDate, inRange(date) {
                        record(
                            refund, day: CalendarDay.of(date), appID: chain.appID, productID: transaction.productID,
                            storefront: transaction.storefront, currency: currency, refund: true,
                            estimated: transaction.isEstimated || sale.refundIsEstimated)
                    }
                    for partial in sale.partialRefunds where inRange(partial.date) {
                        record(
                            partial.refund, day: CalendarDay.of(partial.date), appID: chain.appID,
                            productID: transaction.productID, storefront: transaction.storefront, currency: currency,
                            refund: true, estimated: transaction.isEstimated)
                    }
                }
            }
        }

        // Field by field rather than as tuples: a year by day is some 16,000 rows, and comparing tuples is slow
        // in a debug build (the tuple's type is looked up on every comparison).
        let ordered = rows.map { (key: $0.key, bundleID: bundleIDs[$0.key.appID] ?? "", amounts: $0.value) }.sorted {
            if $0.key.period != $1.key.period { return $0.key.period < $1.key.period }
            if $0.bundleID != $1.bundleID { return $0.bundleID < $1.bundleID }
            if $0.key.productID != $1.key.productID { return $0.key.productID < $1.key.productID }
            if $0.key.storefront != $1.key.storefront { return $0.key.storefront < $1.key.storefront }
            return $0.key.currency < $1.key.currency
        }
        var periods: [String: RevenueReport.CurrencyAmounts] = [:]
        var totals: [String: RevenueReport.Amounts] = [:]
        for (key, _, amounts) in ordered {
            let name = CalendarDay.text(key.period)
            periods["\(name) \(key.currency)", default: .init(period: name, currency: key.currency, amounts: .init())]
                .amounts.add(amounts)
            totals[key.currency, default: .init()].add(amounts)
        }
        var reportingTotal = RevenueReport.Amounts()
        for amounts in reportingPeriods.values { reportingTotal.add(amounts) }
        var payouts: [String: RevenueReport.PayoutAmounts] = [:]
        var payoutTotals: [String: RevenueReport.PayoutAmounts] = [:]
        for group in try store.payoutGroups(from: from, to: to) {
            let name = CalendarDay.text(period(group.day))
            var amounts = RevenueReport.PayoutAmounts(period: name, currency: group.currency)
            switch group.kind {
            case .sale:
                amounts.totalMilli = group.total
                amounts.taxMilli = group.tax
                amounts.feeMilli = group.fee
                amounts.earningsMilli = group.earnings
                amounts.netEarningsMilli = group.earnings
                amounts.sales = group.count
            case .refund:
                amounts.refundedEarningsMilli = group.earnings
                amounts.netEarningsMilli = -group.earnings
                amounts.refunds = group.count
            }
            payouts["\(name) \(group.currency)", default: .init(period: name, currency: group.currency)].add(amounts)
            payoutTotals[group.currency, default: .init(period: "", currency: group.currency)].add(amounts)
        }
        return RevenueReport(
            from: from, to: to, granularity: granularity,
            rows: ordered.map { key, bundleID, amounts in
                RevenueReport.Row(
                    period: CalendarDay.text(key.period), bundleID: bundleID, productID: key.productID,
                    storefront: key.storefront, currency: key.currency, amounts: amounts)
            },
            periods: periods.values.sorted {
                $0.period != $1.period ? $0.period < $1.period : $0.currency < $1.currency
            },
            totals: totals.map { RevenueReport.CurrencyAmounts(period: "", currency: $0.key, amounts: $0.value) }
                .sorted { $0.currency < $1.currency },
            reportingCurrency: reportingCurrency,
            reportingPeriods: reportingCurrency.map { currency in
                reportingPeriods.sorted { $0.key < $1.key }.map {
                    RevenueReport.CurrencyAmounts(
                        period: CalendarDay.text($0.key), currency: currency, amounts: $0.value)
                }
            },
            reportingTotal: reportingCurrency == nil ? nil : reportingTotal,
            missingRates: converter?.missingRates ?? [],
            unpricedSales: unpriced,
            payouts: payouts.values.sorted {
                $0.period != $1.period ? $0.period < $1.period : $0.currency < $1.currency
            },
            payoutTotals: payoutTotals.values.sorted { $0.currency < $1.currency })
    }

    /// The range's groups [`from`, `to`) (milliseconds): from `.facts`, all read from `chain_money_facts`; from
    /// `.dayTotals`, its whole UTC days (from day 0 on) from `revenue_day_totals` and the partial days at its edges
    /// from `chain_money_facts`.
    private static func revenueGroups(
        store: ReportStore, from: Int64, to: Int64, source: MoneySource
    ) throws -> [ReportStore.RevenueGroup] {
        let day: Int64 = 86_400_000
        // The whole days [firstDay, endDay): the first midnight at or after `from` (not before 1970), the last at
        // or before `to`.
        let firstDay = from <= 0 ? 0 : (from + day - 1) / day
        let endDay = max(0, to) / day
        var groups: [ReportStore.RevenueGroup]
        if source == .dayTotals, firstDay < endDay {
            groups = try store.revenueGroups(fromDay: firstDay, toDay: endDay)
            if from < firstDay * day {
                groups += try store.revenueGroups(fromMilliseconds: from, toMilliseconds: firstDay * day)
            }
            if endDay * day < to {
                groups += try store.revenueGroups(fromMilliseconds: endDay * day, toMilliseconds: to)
            }
        } else {
            groups = try store.revenueGroups(fromMilliseconds: from, toMilliseconds: to)
        }
        // The web sales are counted above under the split of a store sale: each such group is taken back out
        // (its members counted negatively under the same key) and counted again as web sales with their fees.
        for web in try store.webRevenueGroups(fromMilliseconds: from, toMilliseconds: to) {
            var storeCounted = web
            storeCounted.web = false
            storeCounted.fee = 0
            storeCounted.tax = nil
            storeCounted.count = -web.count
            groups.append(storeCounted)
            groups.append(web)
        }
        // A web sale's partial refund took nothing back, so no aggregate counts it: it is added as a refund.
        groups += try store.webPartialRefundGroups(fromMilliseconds: from, toMilliseconds: to)
        return groups
    }
}
