/// One of Apple's line items (`OneTimeBuyLineItem`, `SubscriptionBuyLineItem`, `RefundLineItem`): one
/// transaction of a token. Amounts are in milli-units of `reportingCurrency` (10000 is 10.00); dates are
/// milliseconds since 1970.
///
/// One struct holds the three shapes: `eventType` and `productType` say which it is, and a field that does not
/// belong to the shape is left `nil` (and so not encoded).
public struct ExternalPurchaseLineItem: Codable, Hashable, Sendable {
    /// Apple's `lineItemId`: unique per app, at most 128 characters (UUIDs recommended).
    public var lineItemID: String?
    /// Apple's `referenceLineItemId`: a refund's bought line item, or a renewal's `SUBSCRIPTION_START` line item.
    public var referenceLineItemID: String?
    /// Apple's `creationDate`: when the customer authorized the transaction.
    public var creationDate: Int64?
    /// Raw `eventType` (`BUY`, `REFUND`); see `eventType`.
    public var rawEventType: String?
    /// Raw `productType` (`ONE_TIME_BUY`, `SUBSCRIPTION`); see `productType`. A refund has none.
    public var rawProductType: String?
    /// Apple's `productIdentifier`.
    public var productIdentifier: String?
    /// Apple's `quantity`.
    public var quantity: Int64?
    /// Apple's `amountTaxInclusive`, milli-units.
    public var amountTaxInclusive: Int64?
    /// Apple's `amountTaxExclusive`, milli-units.
    public var amountTaxExclusive: Int64?
    /// Apple's `taxAmount`, milli-units.
    public var taxAmount: Int64?
    /// Apple's `netAmountTaxExclusive`: what the purchase amounts to after every refund so far, milli-units.
    public var netAmountTaxExclusive: Int64?
    /// Apple's `reportingCurrency`, ISO 4217.
    public var reportingCurrency: String?
    /// Apple's `pricingCurrency`, ISO 4217.
    public var pricingCurrency: String?
    /// Apple's `exchangeRate`: (amount in `pricingCurrency`) × `exchangeRate` = (amount in `reportingCurrency`);
    /// only when the two differ (`ExternalPurchaseCurrencies`).
    public var exchangeRate: Double?
    /// Apple's `taxCountry`, ISO 3166-1 alpha-3.
    public var taxCountry: String?
    /// Raw `subscriptionEvent` (`SUBSCRIPTION_START`, `RENEWAL`, ...); a subscription's line items only.
    public var rawSubscriptionEvent: String?
    /// Apple's `subscriptionStartDate`: the start of the period the line item pays for.
    public var subscriptionStartDate: Int64?
    /// Apple's `subscriptionEndDate`: the end of that period.
    public var subscriptionEndDate: Int64?
    /// Apple's `subscriptionDaysOfPaidService`: days of paid service before this period (0 at the start).
    public var subscriptionDaysOfPaidService: Int64?
    /// Apple's `restatement`: this line item corrects one reported before under the same `lineItemId`.
    public var restatement: Bool?
    /// Apple's `erroneouslySubmitted`: with `restatement`, withdraws the line item.
    public var erroneouslySubmitted: Bool?

    /// `rawEventType` as a typed value; `nil` when absent or unknown.
    public var eventType: ExternalPurchaseEventType? { rawEventType.flatMap(ExternalPurchaseEventType.init(rawValue:)) }
    /// `rawProductType` as a typed value; `nil` when absent or unknown.
    public var productType: ExternalPurchaseProductType? {
        rawProductType.flatMap(ExternalPurchaseProductType.init(rawValue:))
    }

    /// Creates an empty line item; set the fields of its shape.
    public init() {}

    enum CodingKeys: String, CodingKey {
        case lineItemID = "lineItemId"
        case referenceLineItemID = "referenceLineItemId"
        case creationDate
        case rawEventType = "eventType"
        case rawProductType = "productType"
        case productIdentifier, quantity, amountTaxInclusive, amountTaxExclusive, taxAmount, netAmountTaxExclusive
        case reportingCurrency, pricingCurrency, exchangeRate, taxCountry
        case rawSubscriptionEvent = "subscriptionEvent"
        case subscriptionStartDate, subscriptionEndDate, subscriptionDaysOfPaidService, restatement
        case erroneouslySubmitted
    }
}

/// Apple's `eventType` of a line item.
public enum ExternalPurchaseEventType: String, Codable, Hashable, Sendable, CaseIterable {
    /// A one-time purchase or a subscription event (a start or renewal, paid or not).
    case buy = "BUY"
    /// A refund or chargeback of an earlier `BUY`, up to its full amount.
    case refund = "REFUND"
}

/// Apple's `productType` of a `BUY` line item.
public enum ExternalPurchaseProductType: String, Codable, Hashable, Sendable, CaseIterable {
    /// A one-time charge (`OneTimeBuyLineItem`).
    case oneTimeBuy = "ONE_TIME_BUY"
    /// A subscription event (`SubscriptionBuyLineItem`).
    case subscription = "SUBSCRIPTION"
}

/// The `subscriptionEvent` values Apple's examples use; Apple knows more, which stay raw.
public enum ExternalPurchaseSubscriptionEvent: String, Codable, Hashable, Sendable, CaseIterable {
    /// The first line item of a subscription; later ones reference it.
    case subscriptionStart = "SUBSCRIPTION_START"
    /// A renewal, referencing the subscription's `SUBSCRIPTION_START` line item.
    case renewal = "RENEWAL"
}
