import SubLedgerCore

/// One transaction of a `verifyReceipt` answer: an `in_app` or `latest_receipt_info` entry, or the single
/// transaction at the top level of a pre-iOS 7 `receipt`.
///
/// Decoding is lenient: numbers and booleans may arrive as strings, unknown fields are ignored, and a
/// field that cannot be read is treated as absent.
public struct ReceiptTransactionInfo: Codable, Hashable, Sendable {
    /// Apple's `quantity`.
    public var quantity: Int?
    /// Apple's `product_id`.
    public var productID: String?
    /// Apple's `transaction_id`.
    public var transactionID: String?
    /// Apple's `original_transaction_id`.
    public var originalTransactionID: String?
    /// Apple's `purchase_date_ms`, milliseconds since 1970.
    public var purchaseDateMS: Int64?
    /// Apple's `original_purchase_date_ms`, milliseconds since 1970.
    public var originalPurchaseDateMS: Int64?
    /// `expires_date_ms`, or a pre-iOS 7 `expires_date` that holds milliseconds.
    public var expiresDateMS: Int64?
    /// Apple's `web_order_line_item_id`.
    public var webOrderLineItemID: String?
    /// Apple's `is_trial_period`.
    public var isTrialPeriod: Bool?
    /// Apple's `is_in_intro_offer_period`.
    public var isInIntroOfferPeriod: Bool?
    /// Apple's `is_upgraded`.
    public var isUpgraded: Bool?
    /// Apple's `cancellation_date_ms`, milliseconds since 1970.
    public var cancellationDateMS: Int64?
    /// Raw `cancellation_reason`; see `cancellationReason`.
    public var rawCancellationReason: Int?
    /// Apple's `promotional_offer_id`.
    public var promotionalOfferID: String?
    /// Apple's `offer_code_ref_name`.
    public var offerCodeRefName: String?
    /// Apple's `subscription_group_identifier`.
    public var subscriptionGroupIdentifier: String?
    /// Raw `in_app_ownership_type`; see `inAppOwnershipType`.
    public var rawInAppOwnershipType: String?
    /// Apple's `app_account_token`.
    public var appAccountToken: String?

    /// `rawCancellationReason` as a typed value; `nil` when absent or a value this code does not know yet.
    public var cancellationReason: RevocationReason? { rawCancellationReason.flatMap(RevocationReason.init(rawValue:)) }
    /// `rawInAppOwnershipType` as a typed value; `nil` when absent or a value this code does not know yet.
    public var inAppOwnershipType: InAppOwnershipType? {
        rawInAppOwnershipType.flatMap(InAppOwnershipType.init(rawValue:))
    }

    /// Creates an entry; every field is optional as in Apple's schema.
    public init(
        quantity: Int? = nil, productID: String? = nil, transactionID: String? = nil,
        originalTransactionID: String? = nil, purchaseDateMS: Int64? = nil, originalPurchaseDateMS: Int64? = nil,
        expiresDateMS: Int64? = nil, webOrderLineItemID: String? = nil, isTrialPeriod: Bool? = nil,
        isInIntroOfferPeriod: Bool? = nil, isUpgraded: Bool? = nil, cancellationDateMS: Int64? = nil,
        rawCancellationReason: Int? = nil, promotionalOfferID: String? = nil, offerCodeRefName: String? = nil,
        subscriptionGroupIdentifier: String? = nil, rawInAppOwnershipType: String? = nil,
        appAccountToken: String? = nil
    ) {
        self.quantity = quantity
        self.productID = productID
        self.transactionID = transactionID
        self.originalTransactionID = originalTransactionID
        self.purchaseDateMS = purchaseDateMS
        self.originalPurchaseDateMS = originalPurchaseDateMS
        self.expiresDateMS = expiresDateMS
        self.webOrderLineItemID = webOrderLineItemID
        self.isTrialPeriod = isTrialPeriod
        self.isInIntroOfferPeriod = isInIntroOfferPeriod
        self.isUpgraded = isUpgraded
        self.cancellationDateMS = cancellationDateMS
        self.rawCancellationReason = rawCancellationReason
        self.promotionalOfferID = promotionalOfferID
        self.offerCodeRefName = offerCodeRefName
        self.subscriptionGroupIdentifier = subscriptionGroupIdentifier
        self.rawInAppOwnershipType = rawInAppOwnershipType
        self.appAccountToken = appAccountToken
    }

    enum CodingKeys: String, CodingKey {
        case quantity
        case productID = "product_id"
        case transactionID = "transaction_id"
        case originalTransactionID = "original_transaction_id"
        case purchaseDateMS = "purchase_date_ms"
        case originalPurchaseDateMS = "original_purchase_date_ms"
        case expiresDateMS = "expires_date_ms"
        case webOrderLineItemID = "web_order_line_item_id"
        case isTrialPeriod = "is_trial_period"
        case isInIntroOfferPeriod = "is_in_intro_offer_period"
        case isUpgraded = "is_upgraded"
        case cancellationDateMS = "cancellation_date_ms"
        case rawCancellationReason = "cancellation_reason"
        case promotionalOfferID = "promotional_offer_id"
        case offerCodeRefName = "offer_code_ref_name"
        case subscriptionGroupIdentifier = "subscription_group_identifier"
        case rawInAppOwnershipType = "in_app_ownership_type"
        case appAccountToken = "app_account_token"
    }

    /// Pre-iOS 7 spellings, read only as fallbacks.
    private enum LegacyKeys: String, CodingKey {
        case expiresDate = "expires_date"
        case purchaseDate = "purchase_date"
        case originalPurchaseDate = "original_purchase_date"
    }

    /// Decodes leniently; never fails for a JSON object.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let legacy = try decoder.container(keyedBy: LegacyKeys.self)
        quantity = container.lenientInt(.quantity)
        productID = container.lenientString(.productID)
        transactionID = container.lenientString(.transactionID)
        originalTransactionID = container.lenientString(.originalTransactionID)
        // Pre-iOS 7 receipts sent `purchase_date` and `expires_date` as milliseconds; later ones send a
        // formatted date there (which does not read as an integer) and milliseconds in the `_ms` fields.
        purchaseDateMS = container.lenientMilliseconds(.purchaseDateMS) ?? legacy.lenientMilliseconds(.purchaseDate)
        originalPurchaseDateMS =
            container.lenientMilliseconds(.originalPurchaseDateMS) ?? legacy.lenientMilliseconds(.originalPurchaseDate)
        expiresDateMS = container.lenientMilliseconds(.expiresDateMS) ?? legacy.lenientMilliseconds(.expiresDate)
        webOrderLineItemID = container.lenientString(.webOrderLineItemID)
        isTrialPeriod = container.lenientBool(.isTrialPeriod)
        isInIntroOfferPeriod = container.lenientBool(.isInIntroOfferPeriod)
        isUpgraded = container.lenientBool(.isUpgraded)
        cancellationDateMS = container.lenientMilliseconds(.cancellationDateMS)
        rawCancellationReason = container.lenientInt(.rawCancellationReason)
        promotionalOfferID = container.lenientString(.promotionalOfferID)
        offerCodeRefName = container.lenientString(.offerCodeRefName)
        subscriptionGroupIdentifier = container.lenientString(.subscriptionGroupIdentifier)
        rawInAppOwnershipType = container.lenientString(.rawInAppOwnershipType)
        appAccountToken = container.lenientString(.appAccountToken)
    }
}

extension ReceiptTransactionInfo {
    /// The core's transaction; receipt entries inherit the receipt's bundle id and environment.
    public func coreTransaction(
        bundleID: String?,
        environment: StoreEnvironment,
        source: TransactionSource
    ) throws(PayloadMappingError) -> Transaction {
        let isIntroductory = isInIntroOfferPeriod == true || isTrialPeriod == true
        return try TransactionFields(
            names: .receipt,
            bundleID: bundleID,
            purchaseDate: purchaseDateMS,
            originalPurchaseDate: originalPurchaseDateMS,
            expiresDate: expiresDateMS,
            revocationDate: cancellationDateMS,
            revocationReason: rawCancellationReason,
            isTrialPeriod: isTrialPeriod ?? false,
            isInIntroOfferPeriod: isInIntroOfferPeriod ?? false,
            offerType: OfferType.legacy(
                promotionalOfferID: promotionalOfferID, offerCodeRefName: offerCodeRefName,
                isIntroductory: isIntroductory)?.rawValue,
            offerIdentifier: promotionalOfferID ?? offerCodeRefName,
            environment: environment
        ).coreTransaction(of: self, source: source)
    }
}

extension ReceiptTransactionInfo: TransactionPayload {}
