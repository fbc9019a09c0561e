import SubLedgerCore

/// Apple's `JWSTransactionDecodedPayload`: one StoreKit 2 transaction, as signed by the App Store.
///
/// Enumerations are stored raw (`rawType`, `rawOfferType`, ...) with typed computed views, so values Apple
/// adds later are kept instead of failing the decode. Dates are milliseconds since 1970.
public struct JWSTransactionDecodedPayload: Codable, Hashable, Sendable {
    /// Apple's `originalTransactionId`.
    public var originalTransactionID: String?
    /// Apple's `transactionId`.
    public var transactionID: String?
    /// Apple's `webOrderLineItemId`.
    public var webOrderLineItemID: String?
    /// Apple's `bundleId`.
    public var bundleID: String?
    /// Apple's `productId`.
    public var productID: String?
    /// Apple's `subscriptionGroupIdentifier`.
    public var subscriptionGroupIdentifier: String?
    /// Apple's `purchaseDate`, milliseconds since 1970.
    @AppleMilliseconds public var purchaseDate: Int64?
    /// Apple's `originalPurchaseDate`, milliseconds since 1970.
    @AppleMilliseconds public var originalPurchaseDate: Int64?
    /// Apple's `expiresDate`, milliseconds since 1970.
    @AppleMilliseconds public var expiresDate: Int64?
    /// Apple's `quantity`.
    public var quantity: Int?
    /// Raw `type`; see `type`.
    public var rawType: String?
    /// Apple's `appAccountToken`.
    public var appAccountToken: String?
    /// Raw `inAppOwnershipType`; see `inAppOwnershipType`.
    public var rawInAppOwnershipType: String?
    /// Apple's `signedDate`, milliseconds since 1970.
    @AppleMilliseconds public var signedDate: Int64?
    /// Raw `revocationReason`; see `revocationReason`.
    public var rawRevocationReason: Int?
    /// Apple's `revocationDate`, milliseconds since 1970.
    @AppleMilliseconds public var revocationDate: Int64?
    /// Apple's `isUpgraded`.
    public var isUpgraded: Bool?
    /// Raw `offerType`; see `offerType`.
    public var rawOfferType: Int?
    /// Apple's `offerIdentifier`.
    public var offerIdentifier: String?
    /// Raw `environment`; see `environment`.
    public var rawEnvironment: String?
    /// Apple's `storefront`.
    public var storefront: String?
    /// Apple's `storefrontId`.
    public var storefrontID: String?
    /// Raw `transactionReason`; see `transactionReason`.
    public var rawTransactionReason: String?
    /// Apple's `currency`.
    public var currency: String?
    /// Price in milli-units of `currency`.
    public var price: Int64?
    /// Raw `offerDiscountType`; see `offerDiscountType`.
    public var rawOfferDiscountType: String?
    /// Apple's `appTransactionId`.
    public var appTransactionID: String?
    /// ISO 8601 duration of the offer, e.g. `P1Y`.
    public var offerPeriod: String?
    /// Raw `revocationType`; see `revocationType`.
    public var rawRevocationType: String?
    /// Refunded share in thousandths of a percent (50000 = 50%).
    public var revocationPercentage: Int?
    /// Raw `billingPlanType` (`MONTHLY`: a monthly plan with a 12-month commitment; `BILLED_UPFRONT`).
    public var rawBillingPlanType: String?
    /// Apple's `commitmentInfo`: where a commitment plan's transaction stands in its commitment.
    public var commitmentInfo: TransactionCommitmentInfo?

    /// `rawType` as a typed value; `nil` when absent or a value this code does not know yet.
    public var type: ProductType? { rawType.flatMap(ProductType.init(rawValue:)) }
    /// `rawInAppOwnershipType` as a typed value; `nil` when absent or a value this code does not know yet.
    public var inAppOwnershipType: InAppOwnershipType? {
        rawInAppOwnershipType.flatMap(InAppOwnershipType.init(rawValue:))
    }
    /// `rawRevocationReason` as a typed value; `nil` when absent or a value this code does not know yet.
    public var revocationReason: RevocationReason? { rawRevocationReason.flatMap(RevocationReason.init(rawValue:)) }
    /// `rawOfferType` as a typed value; `nil` when absent or a value this code does not know yet.
    public var offerType: OfferType? { rawOfferType.flatMap(OfferType.init(rawValue:)) }
    /// `rawEnvironment` as a typed value; `nil` when absent or a value this code does not know yet.
    public var environment: StoreEnvironment? { rawEnvironment.flatMap(StoreEnvironment.init(appleSpelling:)) }
    /// `rawTransactionReason` as a typed value; `nil` when absent or a value this code does not know yet.
    public var transactionReason: TransactionReason? {
        rawTransactionReason.flatMap(TransactionReason.init(rawValue:))
    }
    /// `rawOfferDiscountType` as a typed value; `nil` when absent or a value this code does not know yet.
    public var offerDiscountType: OfferDiscountType? {
        rawOfferDiscountType.flatMap(OfferDiscountType.init(rawValue:))
    }
    /// `rawRevocationType` as a typed value; `nil` when absent or a value this code does not know yet.
    public var revocationType: RevocationType? { rawRevocationType.flatMap(RevocationType.init(rawValue:)) }

    /// Creates a payload; every field is optional as in Apple's schema.
    public init(
        originalTransactionID: String? = nil, transactionID: String? = nil, webOrderLineItemID: String? = nil,
        bundleID: String? = nil, productID: String? = nil, subscriptionGroupIdentifier: String? = nil,
        purchaseDate: Int64? = nil, originalPurchaseDate: Int64? = nil, expiresDate: Int64? = nil,
        quantity: Int? = nil, rawType: String? = nil, appAccountToken: String? = nil,
        rawInAppOwnershipType: String? = nil, signedDate: Int64? = nil, rawRevocationReason: Int? = nil,
        revocationDate: Int64? = nil, isUpgraded: Bool? = nil, rawOfferType: Int? = nil,
        offerIdentifier: String? = nil, rawEnvironment: String? = nil, storefront: String? = nil,
        storefrontID: String? = nil, rawTransactionReason: String? = nil, currency: String? = nil,
        price: Int64? = nil, rawOfferDiscountType: String? = nil, appTransactionID: String? = nil,
        offerPeriod: String? = nil, rawRevocationType: String? = nil, revocationPercentage: Int? = nil,
        rawBillingPlanType: String? = nil, commitmentInfo: TransactionCommitmentInfo? = nil
    ) {
        self.originalTransactionID = originalTransactionID
        self.transactionID = transactionID
        self.webOrderLineItemID = webOrderLineItemID
        self.bundleID = bundleID
        self.productID = productID
        self.subscriptionGroupIdentifier = subscriptionGroupIdentifier
        self.purchaseDate = purchaseDate
        self.originalPurchaseDate = originalPurchaseDate
        self.expiresDate = expiresDate
        self.quantity = quantity
        self.rawType = rawType
        self.appAccountToken = appAccountToken
        self.rawInAppOwnershipType = rawInAppOwnershipType
        self.signedDate = signedDate
        self.rawRevocationReason = rawRevocationReason
        self.revocationDate = revocationDate
        self.isUpgraded = isUpgraded
        self.rawOfferType = rawOfferType
        self.offerIdentifier = offerIdentifier
        self.rawEnvironment = rawEnvironment
        self.storefront = storefront
        self.storefrontID = storefrontID
        self.rawTransactionReason = rawTransactionReason
        self.currency = currency
        self.price = price
        self.rawOfferDiscountType = rawOfferDiscountType
        self.appTransactionID = appTransactionID
        self.offerPeriod = offerPeriod
        self.rawRevocationType = rawRevocationType
        self.revocationPercentage = revocationPercentage
        self.rawBillingPlanType = rawBillingPlanType
        self.commitmentInfo = commitmentInfo
    }

    enum CodingKeys: String, CodingKey {
        case originalTransactionID = "originalTransactionId"
        case transactionID = "transactionId"
        case webOrderLineItemID = "webOrderLineItemId"
        case bundleID = "bundleId"
        case productID = "productId"
        case subscriptionGroupIdentifier, purchaseDate, originalPurchaseDate, expiresDate, quantity
        case rawType = "type"
        case appAccountToken
        case rawInAppOwnershipType = "inAppOwnershipType"
        case signedDate
        case rawRevocationReason = "revocationReason"
        case revocationDate, isUpgraded
        case rawOfferType = "offerType"
        case offerIdentifier
        case rawEnvironment = "environment"
        case storefront
        case storefrontID = "storefrontId"
        case rawTransactionReason = "transactionReason"
        case currency, price
        case rawOfferDiscountType = "offerDiscountType"
        case appTransactionID = "appTransactionId"
        case offerPeriod
        case rawRevocationType = "revocationType"
        case revocationPercentage
        case rawBillingPlanType = "billingPlanType"
        case commitmentInfo
    }
}

extension JWSTransactionDecodedPayload {
    /// The core's normalized transaction; `source` says which Apple artifact carried this payload.
    public func coreTransaction(source: TransactionSource) throws(PayloadMappingError) -> Transaction {
        try TransactionFields(
            names: .signed,
            bundleID: bundleID,
            purchaseDate: purchaseDate,
            originalPurchaseDate: originalPurchaseDate,
            expiresDate: expiresDate,
            revocationDate: revocationDate,
            revocationReason: rawRevocationReason,
            revocationPercentage: revocationPercentage,
            isTrialPeriod: offerType == .introductoryOffer && offerDiscountType == .freeTrial,
            isInIntroOfferPeriod: offerType == .introductoryOffer,
            offerType: rawOfferType,
            offerIdentifier: offerIdentifier,
            offerDiscountType: rawOfferDiscountType,
            environment: environment,
            rawProductType: rawType,
            price: price,
            currency: currency,
            storefront: storefront,
            signedDate: signedDate,
            appTransactionID: appTransactionID,
            billingPlanType: rawBillingPlanType,
            commitmentInfo: commitmentInfo
        ).coreTransaction(of: self, source: source)
    }
}

extension JWSTransactionDecodedPayload: TransactionPayload {}

extension JWSTransactionDecodedPayload: PlainReadablePayload {
    /// The payload read from its plain members (see `PlainReadablePayload`), as `JSONDecoder` reads it.
    init(plain members: CapturedJSONObject) throws(CapturedJSONObject.NotPlain) {
        typealias Key = CodingKeys
        self.init(
            originalTransactionID: try members.string(Key.originalTransactionID),
            transactionID: try members.string(Key.transactionID),
            webOrderLineItemID: try members.string(Key.webOrderLineItemID),
            bundleID: try members.string(Key.bundleID),
            productID: try members.string(Key.productID),
            subscriptionGroupIdentifier: try members.string(Key.subscriptionGroupIdentifier),
            purchaseDate: try members.milliseconds(Key.purchaseDate),
            originalPurchaseDate: try members.milliseconds(Key.originalPurchaseDate),
            expiresDate: try members.milliseconds(Key.expiresDate),
            quantity: try members.int(Key.quantity),
            rawType: try members.string(Key.rawType),
            appAccountToken: try members.string(Key.appAccountToken),
            rawInAppOwnershipType: try members.string(Key.rawInAppOwnershipType),
            signedDate: try members.milliseconds(Key.signedDate),
            rawRevocationReason: try members.int(Key.rawRevocationReason),
            revocationDate: try members.milliseconds(Key.revocationDate),
            isUpgraded: try members.bool(Key.isUpgraded),
            rawOfferType: try members.int(Key.rawOfferType),
            offerIdentifier: try members.string(Key.offerIdentifier),
            rawEnvironment: try members.string(Key.rawEnvironment),
            storefront: try members.string(Key.storefront),
            storefrontID: try members.string(Key.storefrontID),
            rawTransactionReason: try members.string(Key.rawTransactionReason),
            currency: try members.string(Key.currency),
            price: try members.int64(Key.price),
            rawOfferDiscountType: try members.string(Key.rawOfferDiscountType),
            appTransactionID: try members.string(Key.appTransactionID),
            offerPeriod: try members.string(Key.offerPeriod),
            rawRevocationType: try members.string(Key.rawRevocationType),
            revocationPercentage: try members.int(Key.revocationPercentage),
            rawBillingPlanType: try members.string(Key.rawBillingPlanType),
            commitmentInfo: try members.object(Key.commitmentInfo, TransactionCommitmentInfo.init(plain:))
        )
    }
}
