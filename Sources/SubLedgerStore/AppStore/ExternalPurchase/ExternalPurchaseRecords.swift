import Foundation
import SubLedgerCore

/// An external purchase token an app handed over with a web order, as checked: what is stored of it.
public struct ExternalPurchaseTokenRecord: Sendable, Hashable {
    /// Apple's `externalPurchaseId`.
    public var externalPurchaseID: String
    /// The environment the token was issued in (its id's `SANDBOX` prefix).
    public var environment: StoreEnvironment
    /// Apple's `tokenType`, raw; nil for a token that is no custom link token.
    public var tokenType: String?
    /// Apple's `tokenCreationDate`.
    public var createdAt: Instant

    public init(externalPurchaseID: String, environment: StoreEnvironment, tokenType: String?, createdAt: Instant) {
        self.externalPurchaseID = externalPurchaseID
        self.environment = environment
        self.tokenType = tokenType
        self.createdAt = createdAt
    }
}

/// The token was handed over before, with another order: a token is reported once, for one purchase.
public struct ExternalPurchaseTokenTaken: Error, Sendable, Hashable, CustomStringConvertible {
    public init() {}
    public var description: String { "the external purchase token was given with another order" }
}

/// A report to send, as recorded: its identity, its token, and what goes in it.
public struct StoredExternalPurchaseReport: Sendable, Hashable {
    /// A line item of the report, with the facts of its transaction.
    public struct LineItem: Sendable, Hashable {
        /// Apple's `lineItemId`.
        public var lineItemID: String
        /// `BUY` or `REFUND`.
        public var eventType: String
        /// For a `REFUND`, its `BUY`'s line item; for a renewal's `BUY`, the chain's first `BUY` line item.
        public var referenceLineItemID: String?
        /// Whether this `BUY` is its chain's first reported transaction (Apple's `SUBSCRIPTION_START`).
        public var isSubscriptionStart: Bool
        public var transactionID: String
        public var productID: String
        /// When the transaction was bought (a `BUY`) or revoked (a `REFUND`).
        public var occurredAt: Instant
        /// The period it paid for.
        public var periodStart: Instant
        public var periodEnd: Instant?
        /// Paid days of the chain before this period (Apple's `subscriptionDaysOfPaidService`).
        public var daysOfPaidServiceBefore: Int64
        /// What was paid, milli-units of `currency`.
        public var priceMilliunits: Int64
        public var currency: String
        /// The tax in the price as the payment processor stated it (Stripe's), milli-units of `currency`; nil when
        /// none was stated.
        public var taxMilliunits: Int64?

        public init(
            lineItemID: String, eventType: String, referenceLineItemID: String?, isSubscriptionStart: Bool,
            transactionID: String, productID: String, occurredAt: Instant,
            periodStart: Instant, periodEnd: Instant?, daysOfPaidServiceBefore: Int64, priceMilliunits: Int64,
            currency: String, taxMilliunits: Int64? = nil
        ) {
            self.taxMilliunits = taxMilliunits
            self.lineItemID = lineItemID
            self.eventType = eventType
            self.referenceLineItemID = referenceLineItemID
            self.isSubscriptionStart = isSubscriptionStart
            self.transactionID = transactionID
            self.productID = productID
            self.occurredAt = occurredAt
            self.periodStart = periodStart
            self.periodEnd = periodEnd
            self.daysOfPaidServiceBefore = daysOfPaidServiceBefore
            self.priceMilliunits = priceMilliunits
            self.currency = currency
        }
    }

    public var reportID: Int64
    /// Apple's `requestIdentifier`, drawn when the report was recorded.
    public var requestIdentifier: String
    public var externalPurchaseID: String
    /// Apple's `status`, raw.
    public var status: String
    /// `pending`, `confirmed` or `failed`.
    public var state: String
    /// Whether an earlier report of the token is still to be confirmed (this one may reference its line items). One
    /// Apple refused does not hold later ones back: Apple judges them, and refuses those that reference it.
    public var waitsForEarlierReport: Bool
    public var lineItems: [LineItem]

    public init(
        reportID: Int64, requestIdentifier: String, externalPurchaseID: String, status: String, state: String,
        waitsForEarlierReport: Bool, lineItems: [LineItem]
    ) {
        self.reportID = reportID
        self.requestIdentifier = requestIdentifier
        self.externalPurchaseID = externalPurchaseID
        self.status = status
        self.state = state
        self.waitsForEarlierReport = waitsForEarlierReport
        self.lineItems = lineItems
    }
}
