import SubLedgerCore

/// One `pending_renewal_info` entry of a `verifyReceipt` answer or V1 notification: a chain's renewal state.
public struct PendingRenewalInfo: Codable, Hashable, Sendable {
    /// Apple's `auto_renew_product_id`.
    public var autoRenewProductID: String?
    /// Raw `auto_renew_status` ("1" on, "0" off); see `autoRenewStatus`.
    public var rawAutoRenewStatus: Int?
    /// Raw `expiration_intent`; see `expirationIntent`.
    public var rawExpirationIntent: Int?
    /// Apple's `grace_period_expires_date_ms`, milliseconds since 1970.
    public var gracePeriodExpiresDateMS: Int64?
    /// Apple's `is_in_billing_retry_period`.
    public var isInBillingRetryPeriod: Bool?
    /// Apple's `offer_code_ref_name`.
    public var offerCodeRefName: String?
    /// Apple's `original_transaction_id`.
    public var originalTransactionID: String?
    /// Raw `price_consent_status`.
    public var rawPriceConsentStatus: Int?
    /// Apple's `product_id`.
    public var productID: String?
    /// Apple's `promotional_offer_id`.
    public var promotionalOfferID: String?
    /// Raw `price_increase_status`.
    public var rawPriceIncreaseStatus: Int?

    /// `rawAutoRenewStatus` as a typed value; `nil` when absent or a value this code does not know yet.
    public var autoRenewStatus: AutoRenewStatus? { rawAutoRenewStatus.flatMap(AutoRenewStatus.init(rawValue:)) }
    /// `rawExpirationIntent` as a typed value; `nil` when absent or a value this code does not know yet.
    public var expirationIntent: ExpirationIntent? { rawExpirationIntent.flatMap(ExpirationIntent.init(rawValue:)) }

    /// Creates an entry; every field is optional as in Apple's schema.
    public init(
        autoRenewProductID: String? = nil, rawAutoRenewStatus: Int? = nil, rawExpirationIntent: Int? = nil,
        gracePeriodExpiresDateMS: Int64? = nil, isInBillingRetryPeriod: Bool? = nil, offerCodeRefName: String? = nil,
        originalTransactionID: String? = nil, rawPriceConsentStatus: Int? = nil, productID: String? = nil,
        promotionalOfferID: String? = nil, rawPriceIncreaseStatus: Int? = nil
    ) {
        self.autoRenewProductID = autoRenewProductID
        self.rawAutoRenewStatus = rawAutoRenewStatus
        self.rawExpirationIntent = rawExpirationIntent
        self.gracePeriodExpiresDateMS = gracePeriodExpiresDateMS
        self.isInBillingRetryPeriod = isInBillingRetryPeriod
        self.offerCodeRefName = offerCodeRefName
        self.originalTransactionID = originalTransactionID
        self.rawPriceConsentStatus = rawPriceConsentStatus
        self.productID = productID
        self.promotionalOfferID = promotionalOfferID
        self.rawPriceIncreaseStatus = rawPriceIncreaseStatus
    }

    enum CodingKeys: String, CodingKey {
        case autoRenewProductID = "auto_renew_product_id"
        case rawAutoRenewStatus = "auto_renew_status"
        case rawExpirationIntent = "expiration_intent"
        case gracePeriodExpiresDateMS = "grace_period_expires_date_ms"
        case isInBillingRetryPeriod = "is_in_billing_retry_period"
        case offerCodeRefName = "offer_code_ref_name"
        case originalTransactionID = "original_transaction_id"
        case rawPriceConsentStatus = "price_consent_status"
        case productID = "product_id"
        case promotionalOfferID = "promotional_offer_id"
        case rawPriceIncreaseStatus = "price_increase_status"
    }

    /// Decodes leniently; never fails for a JSON object.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        autoRenewProductID = container.lenientString(.autoRenewProductID)
        rawAutoRenewStatus = container.lenientInt(.rawAutoRenewStatus)
        rawExpirationIntent = container.lenientInt(.rawExpirationIntent)
        gracePeriodExpiresDateMS = container.lenientMilliseconds(.gracePeriodExpiresDateMS)
        isInBillingRetryPeriod = container.lenientBool(.isInBillingRetryPeriod)
        offerCodeRefName = container.lenientString(.offerCodeRefName)
        originalTransactionID = container.lenientString(.originalTransactionID)
        rawPriceConsentStatus = container.lenientInt(.rawPriceConsentStatus)
        productID = container.lenientString(.productID)
        promotionalOfferID = container.lenientString(.promotionalOfferID)
        rawPriceIncreaseStatus = container.lenientInt(.rawPriceIncreaseStatus)
    }
}

extension PendingRenewalInfo {
    /// The core's renewal state, observed at `observedAt` (the receipt's request time).
    public func coreRenewalInfo(
        environment: StoreEnvironment,
        observedAt: Instant
    ) throws(PayloadMappingError) -> RenewalInfo {
        try RenewalFields(
            names: .receipt,
            gracePeriodExpiresDate: gracePeriodExpiresDateMS,
            priceIncreaseStatus: rawPriceConsentStatus ?? rawPriceIncreaseStatus,
            offerType: OfferType.legacy(promotionalOfferID: promotionalOfferID, offerCodeRefName: offerCodeRefName)?
                .rawValue,
            offerIdentifier: promotionalOfferID ?? offerCodeRefName,
            environment: environment,
            observation: .at(observedAt)
        ).coreRenewalInfo(of: self)
    }
}

extension PendingRenewalInfo: RenewalPayload {}
