import AppStore
import SubLedgerCore
import SubLedgerStore
import SubLedgerUseCases

/// A recorded report in Apple's words (`ExternalPurchaseReport`): each line item of a web transaction as Apple's
/// `SubscriptionBuyLineItem`, `OneTimeBuyLineItem` or `RefundLineItem`.
///
/// - Amounts are what the customer paid, in milli-units of the reporting currency; the tax is the one Stripe stated
///   for the sale (`Transaction.tax`: in the amount paid), else 0, and the tax-exclusive amount is the amount paid
///   less it. The reporting currency is the transaction's (its pricing currency) when Apple accepts it; otherwise
///   the sale is reported converted into USD or EUR at the line item's `Conversion`, whose rate is stated as
///   `exchangeRate` (each amount converted and rounded to the milli-unit; the tax-exclusive amount the converted
///   total less the converted tax).
/// - `taxCountry` is the app's `external_purchase.tax_country`.
/// - A chain's first reported purchase is its `SUBSCRIPTION_START`, every later one a `RENEWAL` referencing it; a
///   refund references the purchase it gives back, in full (a revocation), so its net amount is 0.
enum ExternalPurchaseReportBuilder {
    /// A sale in a currency Apple does not accept, reported in `reportingCurrency` at `rate`.
    struct Conversion: Hashable, Sendable {
        var reportingCurrency: String
        var rate: Double

        func convert(_ milliunits: Int64) -> Int64 { Int64((Double(milliunits) * rate).rounded()) }
    }

    /// Whether a line item in `currency` must be reported converted.
    static func needsConversion(_ currency: String) -> Bool {
        !ExternalPurchaseCurrencies.reporting.contains(currency)
    }

    /// `stored` in Apple's words; `conversions` holds, by line item id, how each line item in a currency Apple does
    /// not accept is converted.
    static func report(
        _ stored: StoredExternalPurchaseReport, app: App, conversions: [String: Conversion] = [:]
    ) -> ExternalPurchaseReport {
        let status = ExternalPurchaseReportStatus(rawValue: stored.status)
        guard status == .lineItem else {
            return ExternalPurchaseReport(
                requestIdentifier: stored.requestIdentifier, externalPurchaseID: stored.externalPurchaseID,
                status: status)
        }
        return ExternalPurchaseReport(
            requestIdentifier: stored.requestIdentifier, externalPurchaseID: stored.externalPurchaseID,
            status: .lineItem,
            lineItems: stored.lineItems.map { lineItem($0, app: app, conversion: conversions[$0.lineItemID]) })
    }

    static func lineItem(_ stored: StoredExternalPurchaseReport.LineItem, app: App, conversion: Conversion? = nil)
        -> ExternalPurchaseLineItem
    {
        var item = ExternalPurchaseLineItem()
        item.lineItemID = stored.lineItemID
        item.referenceLineItemID = stored.referenceLineItemID
        item.creationDate = stored.occurredAt.millisecondsSince1970
        // The tax Stripe stated is in the price; without one, none is reported.
        var tax = min(max(stored.taxMilliunits ?? 0, 0), max(stored.priceMilliunits, 0))
        var price = stored.priceMilliunits
        item.reportingCurrency = stored.currency
        item.pricingCurrency = stored.currency
        if let conversion {
            price = conversion.convert(price)
            tax = min(conversion.convert(tax), max(price, 0))
            item.reportingCurrency = conversion.reportingCurrency
            item.exchangeRate = conversion.rate
        }
        item.amountTaxInclusive = price
        item.amountTaxExclusive = price - tax
        item.taxAmount = tax
        item.taxCountry = app.externalPurchase.taxCountry
        guard stored.eventType == ExternalPurchaseEventType.buy.rawValue else {
            item.rawEventType = ExternalPurchaseEventType.refund.rawValue
            item.netAmountTaxExclusive = 0
            return item
        }
        item.rawEventType = ExternalPurchaseEventType.buy.rawValue
        item.netAmountTaxExclusive = price - tax
        item.productIdentifier = stored.productID
        item.quantity = 1
        let type = app.product(stored.productID)?.type
        guard type == .autoRenewable || type == .nonRenewing else {
            item.rawProductType = ExternalPurchaseProductType.oneTimeBuy.rawValue
            return item
        }
        item.rawProductType = ExternalPurchaseProductType.subscription.rawValue
        item.rawSubscriptionEvent =
            (stored.isSubscriptionStart
            ? ExternalPurchaseSubscriptionEvent.subscriptionStart : .renewal).rawValue
        item.subscriptionStartDate = stored.periodStart.millisecondsSince1970
        item.subscriptionEndDate = (stored.periodEnd ?? stored.periodStart).millisecondsSince1970
        item.subscriptionDaysOfPaidService = stored.daysOfPaidServiceBefore
        return item
    }
}
