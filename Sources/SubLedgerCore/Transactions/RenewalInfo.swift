/// The renewal state of one subscription chain, as Apple last described it.
///
/// Legacy `pending_renewal_info` entries and StoreKit 2 `JWSRenewalInfoDecodedPayload` both map here.
public struct RenewalInfo: Hashable, Sendable, Codable {
    /// The chain this renewal state describes (`Transaction.chainID`).
    public var chainID: String
    /// The product the chain is currently on (`product_id` / `productId`).
    public var productID: String
    /// The product that renews next (`auto_renew_product_id` / `autoRenewProductId`).
    public var autoRenewProductID: String?
    /// `auto_renew_status` "1" / `autoRenewStatus` 1.
    public var willAutoRenew: Bool
    /// `expiration_intent` / `expirationIntent`, raw: 1 cancelled, 2 billing error, 3 price increase
    /// declined, 4 product unavailable, 5 other; unknown values kept.
    public var expirationIntent: Int?
    /// `is_in_billing_retry_period` / `isInBillingRetryPeriod`.
    public var isInBillingRetryPeriod: Bool
    /// `grace_period_expires_date_ms` / `gracePeriodExpiresDate`.
    public var gracePeriodExpiresDate: Instant?
    /// `price_consent_status` (legacy, 0/1) or `priceIncreaseStatus` (StoreKit 2, 0/1), raw.
    public var priceIncreaseStatus: Int?
    public var offerType: Int?
    public var offerIdentifier: String?
    /// StoreKit 2 `renewalDate`: when the next renewal is due, if Apple states it.
    public var renewalDate: Instant?
    /// StoreKit 2 `renewalPrice`: what the next renewal will cost, in milli-units of `currency` (after a price
    /// increase the customer accepted, or an offer's price). Legacy renewal info has no price.
    public var renewalPrice: Int64?
    /// StoreKit 2 `currency` of `renewalPrice`: ISO 4217.
    public var currency: String?
    /// StoreKit 2 `offerDiscountType` of the offer the next renewal uses (`FREE_TRIAL`, `PAY_AS_YOU_GO`,
    /// `PAY_UP_FRONT`), raw.
    public var offerDiscountType: String?
    /// StoreKit 2 `eligibleWinBackOfferIds`: the win-back offers the customer may redeem now (their
    /// subscription ended); `nil` when Apple states none.
    public var eligibleWinBackOfferIDs: [String]?
    /// StoreKit 2 `renewalBillingPlanType` of the next renewal, checked (`BillingPlan`).
    public var billingPlanType: String?
    /// StoreKit 2 `commitmentInfo`: what happens when the current commitment ends.
    public var commitment: RenewalCommitment?
    public var environment: StoreEnvironment
    /// When Apple produced this renewal state (JWS `signedDate`, or the receipt's request time); used so
    /// an older renewal state never overwrites a newer one.
    public var observedAt: Instant

    /// The stored chains' JSON keys (`StoredChainJSON`): the chain id keeps the name it was first stored under.
    enum CodingKeys: String, CodingKey {
        case chainID = "originalTransactionID"
        case productID
        case autoRenewProductID
        case willAutoRenew
        case expirationIntent
        case isInBillingRetryPeriod
        case gracePeriodExpiresDate
        case priceIncreaseStatus
        case offerType
        case offerIdentifier
        case renewalDate
        case renewalPrice
        case currency
        case offerDiscountType
        case eligibleWinBackOfferIDs
        case billingPlanType
        case commitment
        case environment
        case observedAt
    }

    public init(
        chainID: String,
        productID: String,
        autoRenewProductID: String? = nil,
        willAutoRenew: Bool,
        expirationIntent: Int? = nil,
        isInBillingRetryPeriod: Bool = false,
        gracePeriodExpiresDate: Instant? = nil,
        priceIncreaseStatus: Int? = nil,
        offerType: Int? = nil,
        offerIdentifier: String? = nil,
        renewalDate: Instant? = nil,
        renewalPrice: Int64? = nil,
        currency: String? = nil,
        offerDiscountType: String? = nil,
        eligibleWinBackOfferIDs: [String]? = nil,
        billingPlanType: String? = nil,
        commitment: RenewalCommitment? = nil,
        environment: StoreEnvironment,
        observedAt: Instant
    ) {
        self.chainID = chainID
        self.productID = productID
        self.autoRenewProductID = autoRenewProductID
        self.willAutoRenew = willAutoRenew
        self.expirationIntent = expirationIntent
        self.isInBillingRetryPeriod = isInBillingRetryPeriod
        self.gracePeriodExpiresDate = gracePeriodExpiresDate
        self.priceIncreaseStatus = priceIncreaseStatus
        self.offerType = offerType
        self.offerIdentifier = offerIdentifier
        self.renewalDate = renewalDate
        self.renewalPrice = renewalPrice
        self.currency = currency
        self.offerDiscountType = offerDiscountType
        self.eligibleWinBackOfferIDs = eligibleWinBackOfferIDs
        self.billingPlanType = billingPlanType
        self.commitment = commitment
        self.environment = environment
        self.observedAt = observedAt
    }
}

extension RenewalInfo {
    /// This renewal state as stored over `previous`: a renewal state that states no price (every legacy
    /// `pending_renewal_info`, and StoreKit 2 payloads older than Apple's `renewalPrice`) says nothing about it, so
    /// the price `previous` stated for the same next product and offer stays. A different next product or offer
    /// drops it: its price is unknown.
    public func keepingPrice(of previous: RenewalInfo?) -> RenewalInfo {
        guard renewalPrice == nil, currency == nil, let previous, previous.renewalPrice != nil,
            previous.nextProductID == nextProductID, previous.offerIdentifier == offerIdentifier
        else { return self }
        var kept = self
        kept.renewalPrice = previous.renewalPrice
        kept.currency = previous.currency
        return kept
    }

    /// The product the chain renews into: `autoRenewProductID`, else the current product.
    var nextProductID: String { autoRenewProductID ?? productID }
}
