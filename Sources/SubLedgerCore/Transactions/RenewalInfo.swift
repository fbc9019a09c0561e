/// The renewal state of one subscription chain, as Apple last described it.
///
/// Legacy `pending_renewal_info` entries and StoreKit 2 `JWSRenewalInfoDecodedPayload` both map here.
public struct RenewalInfo: Hashable, Sendable, Codable {
    public var originalTransactionID: String
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
    public var environment: AppStoreEnvironment
    /// When Apple produced this renewal state (JWS `signedDate`, or the receipt's request time); used so
    /// an older renewal state never overwrites a newer one.
    public var observedAt: Instant

    public init(
        originalTransactionID: String,
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
        environment: AppStoreEnvironment,
        observedAt: Instant
    ) {
        self.originalTransactionID = originalTransactionID
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
        self.environment = environment
        self.observedAt = observedAt
    }
}
