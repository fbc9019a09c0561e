import SubLedgerCore

/// Apple's `JWSRenewalInfoDecodedPayload`: the renewal state of one subscription chain, as signed by the App Store.
public struct JWSRenewalInfoDecodedPayload: Codable, Hashable, Sendable {
    /// Raw `expirationIntent`; see `expirationIntent`.
    public var rawExpirationIntent: Int?
    /// Apple's `originalTransactionId`.
    public var originalTransactionID: String?
    /// Apple's `autoRenewProductId`.
    public var autoRenewProductID: String?
    /// Apple's `productId`.
    public var productID: String?
    /// Raw `autoRenewStatus`; see `autoRenewStatus`.
    public var rawAutoRenewStatus: Int?
    /// Apple's `isInBillingRetryPeriod`.
    public var isInBillingRetryPeriod: Bool?
    /// Raw `priceIncreaseStatus`; see `priceIncreaseStatus`.
    public var rawPriceIncreaseStatus: Int?
    /// Apple's `gracePeriodExpiresDate`, milliseconds since 1970.
    @AppleMilliseconds public var gracePeriodExpiresDate: Int64?
    /// Raw `offerType`; see `offerType`.
    public var rawOfferType: Int?
    /// Apple's `offerIdentifier`.
    public var offerIdentifier: String?
    /// Apple's `signedDate`, milliseconds since 1970.
    @AppleMilliseconds public var signedDate: Int64?
    /// Raw `environment`; see `environment`.
    public var rawEnvironment: String?
    /// Apple's `recentSubscriptionStartDate`, milliseconds since 1970.
    @AppleMilliseconds public var recentSubscriptionStartDate: Int64?
    /// Apple's `renewalDate`, milliseconds since 1970.
    @AppleMilliseconds public var renewalDate: Int64?
    /// Apple's `currency`.
    public var currency: String?
    /// Renewal price in milli-units of `currency`.
    public var renewalPrice: Int64?
    /// Raw `offerDiscountType`; see `offerDiscountType`.
    public var rawOfferDiscountType: String?
    /// Apple's `eligibleWinBackOfferIds`.
    public var eligibleWinBackOfferIDs: [String]?
    /// Apple's `appAccountToken`.
    public var appAccountToken: String?
    /// Apple's `appTransactionId`.
    public var appTransactionID: String?
    /// Apple's `offerPeriod`.
    public var offerPeriod: String?
    /// Raw `renewalBillingPlanType` of the next renewal (`MONTHLY`, `BILLED_UPFRONT`).
    public var rawRenewalBillingPlanType: String?
    /// Apple's `commitmentInfo`: what happens when the current commitment ends.
    public var commitmentInfo: RenewalCommitmentInfo?

    /// `rawExpirationIntent` as a typed value; `nil` when absent or a value this code does not know yet.
    public var expirationIntent: ExpirationIntent? { rawExpirationIntent.flatMap(ExpirationIntent.init(rawValue:)) }
    /// `rawAutoRenewStatus` as a typed value; `nil` when absent or a value this code does not know yet.
    public var autoRenewStatus: AutoRenewStatus? { rawAutoRenewStatus.flatMap(AutoRenewStatus.init(rawValue:)) }
    /// `rawPriceIncreaseStatus` as a typed value; `nil` when absent or a value this code does not know yet.
    public var priceIncreaseStatus: PriceIncreaseStatus? {
        rawPriceIncreaseStatus.flatMap(PriceIncreaseStatus.init(rawValue:))
    }
    /// `rawOfferType` as a typed value; `nil` when absent or a value this code does not know yet.
    public var offerType: OfferType? { rawOfferType.flatMap(OfferType.init(rawValue:)) }
    /// `rawEnvironment` as a typed value; `nil` when absent or a value this code does not know yet.
    public var environment: StoreEnvironment? { rawEnvironment.flatMap(StoreEnvironment.init(appleSpelling:)) }
    /// `rawOfferDiscountType` as a typed value; `nil` when absent or a value this code does not know yet.
    public var offerDiscountType: OfferDiscountType? {
        rawOfferDiscountType.flatMap(OfferDiscountType.init(rawValue:))
    }

    /// Creates a payload; every field is optional as in Apple's schema.
    public init(
        rawExpirationIntent: Int? = nil, originalTransactionID: String? = nil, autoRenewProductID: String? = nil,
        productID: String? = nil, rawAutoRenewStatus: Int? = nil, isInBillingRetryPeriod: Bool? = nil,
        rawPriceIncreaseStatus: Int? = nil, gracePeriodExpiresDate: Int64? = nil, rawOfferType: Int? = nil,
        offerIdentifier: String? = nil, signedDate: Int64? = nil, rawEnvironment: String? = nil,
        recentSubscriptionStartDate: Int64? = nil, renewalDate: Int64? = nil, currency: String? = nil,
        renewalPrice: Int64? = nil, rawOfferDiscountType: String? = nil, eligibleWinBackOfferIDs: [String]? = nil,
        appAccountToken: String? = nil, appTransactionID: String? = nil, offerPeriod: String? = nil,
        rawRenewalBillingPlanType: String? = nil, commitmentInfo: RenewalCommitmentInfo? = nil
    ) {
        self.rawExpirationIntent = rawExpirationIntent
        self.originalTransactionID = originalTransactionID
        self.autoRenewProductID = autoRenewProductID
        self.productID = productID
        self.rawAutoRenewStatus = rawAutoRenewStatus
        self.isInBillingRetryPeriod = isInBillingRetryPeriod
        self.rawPriceIncreaseStatus = rawPriceIncreaseStatus
        self.gracePeriodExpiresDate = gracePeriodExpiresDate
        self.rawOfferType = rawOfferType
        self.offerIdentifier = offerIdentifier
        self.signedDate = signedDate
        self.rawEnvironment = rawEnvironment
        self.recentSubscriptionStartDate = recentSubscriptionStartDate
        self.renewalDate = renewalDate
        self.currency = currency
        self.renewalPrice = renewalPrice
        self.rawOfferDiscountType = rawOfferDiscountType
        self.eligibleWinBackOfferIDs = eligibleWinBackOfferIDs
        self.appAccountToken = appAccountToken
        self.appTransactionID = appTransactionID
        self.offerPeriod = offerPeriod
        self.rawRenewalBillingPlanType = rawRenewalBillingPlanType
        self.commitmentInfo = commitmentInfo
    }

    enum CodingKeys: String, CodingKey {
        case rawExpirationIntent = "expirationIntent"
        case originalTransactionID = "originalTransactionId"
        case autoRenewProductID = "autoRenewProductId"
        case productID = "productId"
        case rawAutoRenewStatus = "autoRenewStatus"
        case isInBillingRetryPeriod
        case rawPriceIncreaseStatus = "priceIncreaseStatus"
        case gracePeriodExpiresDate
        case rawOfferType = "offerType"
        case offerIdentifier, signedDate
        case rawEnvironment = "environment"
        case recentSubscriptionStartDate, renewalDate, currency, renewalPrice
        case rawOfferDiscountType = "offerDiscountType"
        case eligibleWinBackOfferIDs = "eligibleWinBackOfferIds"
        case appAccountToken
        case appTransactionID = "appTransactionId"
        case offerPeriod
        case rawRenewalBillingPlanType = "renewalBillingPlanType"
        case commitmentInfo
    }
}

extension JWSRenewalInfoDecodedPayload {
    /// The core's renewal state, observed at the payload's `signedDate`.
    public func coreRenewalInfo() throws(PayloadMappingError) -> RenewalInfo {
        try RenewalFields(
            names: .signed,
            gracePeriodExpiresDate: gracePeriodExpiresDate,
            priceIncreaseStatus: rawPriceIncreaseStatus,
            offerType: rawOfferType,
            offerIdentifier: offerIdentifier,
            renewalDate: renewalDate,
            renewalPrice: renewalPrice,
            currency: currency,
            offerDiscountType: rawOfferDiscountType,
            environment: environment,
            observation: .signedDate(signedDate),
            eligibleWinBackOfferIDs: eligibleWinBackOfferIDs,
            billingPlanType: rawRenewalBillingPlanType,
            commitmentInfo: commitmentInfo
        ).coreRenewalInfo(of: self)
    }
}

extension JWSRenewalInfoDecodedPayload: RenewalPayload {}

extension JWSRenewalInfoDecodedPayload: PlainReadablePayload {
    /// The payload read from its plain members (see `PlainReadablePayload`), as `JSONDecoder` reads it.
    init(plain members: CapturedJSONObject) throws(CapturedJSONObject.NotPlain) {
        typealias Key = CodingKeys
        self.init(
            rawExpirationIntent: try members.int(Key.rawExpirationIntent),
            originalTransactionID: try members.string(Key.originalTransactionID),
            autoRenewProductID: try members.string(Key.autoRenewProductID),
            productID: try members.string(Key.productID),
            rawAutoRenewStatus: try members.int(Key.rawAutoRenewStatus),
            isInBillingRetryPeriod: try members.bool(Key.isInBillingRetryPeriod),
            rawPriceIncreaseStatus: try members.int(Key.rawPriceIncreaseStatus),
            gracePeriodExpiresDate: try members.milliseconds(Key.gracePeriodExpiresDate),
            rawOfferType: try members.int(Key.rawOfferType),
            offerIdentifier: try members.string(Key.offerIdentifier),
            signedDate: try members.milliseconds(Key.signedDate),
            rawEnvironment: try members.string(Key.rawEnvironment),
            recentSubscriptionStartDate: try members.milliseconds(Key.recentSubscriptionStartDate),
            renewalDate: try members.milliseconds(Key.renewalDate),
            currency: try members.string(Key.currency),
            renewalPrice: try members.int64(Key.renewalPrice),
            rawOfferDiscountType: try members.string(Key.rawOfferDiscountType),
            eligibleWinBackOfferIDs: try members.strings(Key.eligibleWinBackOfferIDs),
            appAccountToken: try members.string(Key.appAccountToken),
            appTransactionID: try members.string(Key.appTransactionID),
            offerPeriod: try members.string(Key.offerPeriod),
            rawRenewalBillingPlanType: try members.string(Key.rawRenewalBillingPlanType),
            commitmentInfo: try members.object(Key.commitmentInfo, RenewalCommitmentInfo.init(plain:))
        )
    }
}
