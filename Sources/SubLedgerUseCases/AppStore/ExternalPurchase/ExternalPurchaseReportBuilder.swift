import AppStore
import SubLedgerCore
import SubLedgerStore

/// A recorded report in Apple's words (`ExternalPurchaseReport`): each line item of a web transaction as Apple's
/// `SubscriptionBuyLineItem`, `OneTimeBuyLineItem` or `RefundLineItem`.
///
/// - Amounts are what the customer paid, in milli-units of the transaction's currency, which is both the pricing
///   and the reporting currency; the tax is the one Stripe stated for the sale (`Transaction.tax`: in the amount
///   paid), else 0, and the tax-exclusive amount is the amount paid less it.
/// - `taxCountry` is the app's `external_purchase.tax_country`.
/// - A chain's first reported purchase is its `SUBSCRIPTION_START`, every later one a `RENEWAL` referencing it; a
///   refund references the purchase it gives back, in full (a revocation), so its net amount is 0.
enum ExternalPurchaseReportBuilder {
    static func report(_ stored: StoredExternalPurchaseReport, app: App) -> ExternalPurchaseReport {
        let status = ExternalPurchaseReportStatus(rawValue: stored.status)
        guard status == .lineItem else {
            return ExternalPurchaseReport(
                requestIdentifier: stored.requestIdentifier, externalPurchaseID: stored.externalPurchaseID,
                status: status)
        }
        return ExternalPurchaseReport(
            requestIdentifier: stored.requestIdentifier, externalPurchaseID: stored.externalPurchaseID,
            status: .lineItem, lineItems: stored.lineItems.map { lineItem($0, app: app) })
    }

    static func lineItem(_ stored: StoredExternalPurchaseReport.LineItem, app: App) -> ExternalPurchaseLineItem {
        var item = ExternalPurchaseLineItem()
        item.lineItemID = stored.lineItemID
        item.referenceLineItemID = stored.referenceLineItemID
        item.creationDate = stored.occurredAt.millisecondsSince1970
        // The tax Stripe stated is in the price; without one, none is reported.
        let tax = min(max(stored.taxMilliunits ?? 0, 0), max(stored.priceMilliunits, 0))
        item.amountTaxInclusive = stored.priceMilliunits
        item.amountTaxExclusive = stored.priceMilliunits - tax
        item.taxAmount = tax
        item.reportingCurrency = stored.currency
        item.pricingCurrency = stored.currency
        item.taxCountry = app.externalPurchase.taxCountry
        guard stored.eventType == ExternalPurchaseEventType.buy.rawValue else {
            item.rawEventType = ExternalPurchaseEventType.refund.rawValue
            item.netAmountTaxExclusive = 0
            return item
        }
        item.rawEventType = ExternalPurchaseEventType.buy.rawValue
        item.netAmountTaxExclusive = stored.priceMilliunits - tax
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
