/// One store transaction, normalized from whichever source carried it.
///
/// Every Apple shape (legacy receipt `in_app` entries, StoreKit 2 JWS transactions, notification
/// payloads, Server API answers) and every Google Play one (a subscription's order, a one-time product's
/// order, read from the Developer API) maps into this one value; the ledger only ever sees this.
///
/// In the ledger's words: `transactionID` names one purchase or renewal (the App Store's transaction id, Google
/// Play's order id `GPA.…`, a renewal's with `..N`); `chainID` names the chain of renewals it belongs to (the App
/// Store's original transaction id; Google Play's first purchase token of the subscription's lineage, where an
/// upgrade's new token, naming the old one in `linkedPurchaseToken`, stays on the chain). `accountHint` is the
/// account hint the app set at purchase (StoreKit's `appAccountToken`, Google Play's `obfuscatedExternalAccountId`),
/// and `purchaseToken` the Google Play token the order was bought under.
public struct Transaction: Hashable, Sendable, Codable {
    /// One purchase or renewal, unique within its store and environment (the App Store's `transactionId`, Google
    /// Play's order id).
    public var transactionID: String
    /// The chain of renewals this transaction belongs to, stable across them (the App Store's
    /// `originalTransactionId`, Google Play's lineage's first purchase token); with the environment, the chain's key.
    public var chainID: String
    public var productID: String
    /// The app's bundle id, where the source states it (JWS and notifications do; receipt items inherit it).
    public var bundleID: String?
    public var quantity: Int
    public var purchaseDate: Instant
    public var originalPurchaseDate: Instant?
    /// The end of the period this transaction paid for; `nil` for non-subscriptions.
    public var expiresDate: Instant?
    /// `cancellation_date_ms` (legacy) or `revocationDate` (StoreKit 2): refunded or revoked at this time.
    public var revocationDate: Instant?
    /// `cancellation_reason` / `revocationReason`, raw: 0 other, 1 a problem in the app; unknown values kept.
    public var revocationReason: Int?
    /// StoreKit 2 `revocationPercentage`: the share of the price the App Store refunded, in thousandths of a
    /// percent (`0...100_000`, 25 000 is 25 %), on a refund that is not reversed; `nil` when the source does not
    /// state it (receipts never do), which counts as the whole price (`RevocationPercentage`).
    public var revocationPercentage: Int?
    public var webOrderLineItemID: String?
    public var subscriptionGroupID: String?
    public var isTrialPeriod: Bool
    public var isInIntroOfferPeriod: Bool
    /// StoreKit 2 `offerType`, raw (1 introductory, 2 promotional, 3 offer code, 4 win-back).
    public var offerType: Int?
    public var offerIdentifier: String?
    /// StoreKit 2 `offerDiscountType`, raw (`FREE_TRIAL`, `PAY_AS_YOU_GO`, `PAY_UP_FRONT`, ...).
    public var offerDiscountType: String?
    /// True when the user upgraded away from this transaction's product within its group.
    public var isUpgraded: Bool
    public var ownershipType: OwnershipType
    /// The account hint the app set at purchase, naming the account it bought for: StoreKit's `appAccountToken`
    /// (the legacy `app_account_token`), a UUID; Google Play's `obfuscatedExternalAccountId`.
    public var accountHint: String?
    /// StoreKit 1 `applicationUsername`, where a source exposes it; often empty (a known Apple bug).
    public var applicationUsername: String?
    public var environment: StoreEnvironment
    public var source: TransactionSource
    /// Apple's `type` (`Auto-Renewable Subscription`, `Consumable`, ...), raw, when the source states it.
    public var rawProductType: String?
    /// StoreKit 2 price in milli-units of `currency`, when known (refund amounts in reports).
    public var price: Int64?
    public var currency: String?
    /// The payment processor's fee on this sale, in milli-units of `currency`, where the store states one: Stripe's
    /// fee from the balance transaction of the charge that paid it. Store commissions are not fees (`Commission`).
    public var processingFee: Int64?
    /// The tax in this sale's price, in milli-units of `currency`, where the store states it for the sale itself:
    /// Stripe's tax on the paid invoice (`total_taxes`) or on a one-time Checkout Session (`total_details.amount_tax`).
    /// When stated, the revenue report deducts it instead of a storefront's rate (`subledger tax apply`).
    public var tax: Int64?
    /// Refunds of part of this sale that did not take it back (Stripe's refunds of part of the charge), oldest
    /// first; `nil` when there are none. A refund of the whole sale is a revocation (`revocationDate`), and then
    /// these are not listed: the revocation gives the whole price back.
    public var partialRefunds: [PartialRefund]?
    /// The part of `processingFee` the refunds that revoked this sale gave back to the seller, in milli-units of
    /// `currency`, where the store returns its fee on a refund: Paddle's. `nil` where the store keeps its fee
    /// (Stripe), or while the sale is not revoked.
    public var refundedFee: Int64?
    /// The sale in the seller's payout currency as the store states it (Paddle's `payout_totals`); `nil` where the
    /// store pays out in the sale's currency or has not stated it yet.
    public var payout: StatedPayout?
    /// The store's own customer who paid, where the store keeps customers apart from the app's accounts: Stripe's
    /// customer (`cus_…`). Support looks a purchase up by it.
    public var customerID: String?
    /// The payment that paid this transaction, where the store names it apart from the transaction: Stripe's charge
    /// (`ch_…`) of the paid invoice. Support looks a purchase up by it.
    public var paymentID: String?
    public var storefront: String?
    /// When Apple signed the payload that carried this transaction (JWS `signedDate`), if signed.
    public var signedDate: Instant?
    /// StoreKit 2 `appTransactionId`: the customer's download of the app (one per Apple Account and app, the
    /// same across redownloads, refunds and storefront changes); receipts do not state it.
    public var appTransactionID: String?
    /// StoreKit 2 `billingPlanType` (`MONTHLY`: a monthly plan with a 12-month commitment), checked.
    public var billingPlanType: String?
    /// StoreKit 2 `commitmentInfo`: where a commitment plan's transaction stands in its commitment.
    public var commitment: TransactionCommitment?
    /// Google Play: the purchase token this order was bought under (what the Developer API is asked with,
    /// and what is acknowledged or consumed); `nil` for the App Store.
    public var purchaseToken: String?
    /// Google Play: the purchase token that `purchaseToken` replaced (Google's `linkedPurchaseToken`: an upgrade,
    /// downgrade or re-signup continues the lineage under a new token). It orders the chain's transactions
    /// (`TransactionOrder`); `nil` for a lineage's first token and for the App Store.
    public var replacedPurchaseToken: String?

    /// The store that sold this transaction (the store of its source).
    public var store: Store { source.store }

    /// The stored chains' JSON keys (`StoredChainJSON`): the chain id keeps the name it was first stored under.
    enum CodingKeys: String, CodingKey {
        case transactionID
        case chainID = "originalTransactionID"
        case productID
        case bundleID
        case quantity
        case purchaseDate
        case originalPurchaseDate
        case expiresDate
        case revocationDate
        case revocationReason
        case revocationPercentage
        case webOrderLineItemID
        case subscriptionGroupID
        case isTrialPeriod
        case isInIntroOfferPeriod
        case offerType
        case offerIdentifier
        case offerDiscountType
        case isUpgraded
        case ownershipType
        case accountHint = "appAccountToken"
        case applicationUsername
        case environment
        case source
        case rawProductType
        case price
        case currency
        case processingFee
        case tax
        case partialRefunds
        case refundedFee
        case payout
        case customerID
        case paymentID
        case storefront
        case signedDate
        case appTransactionID
        case billingPlanType
        case commitment
        case purchaseToken
        case replacedPurchaseToken
    }

    public init(
        transactionID: String,
        chainID: String,
        productID: String,
        bundleID: String? = nil,
        quantity: Int = 1,
        purchaseDate: Instant,
        originalPurchaseDate: Instant? = nil,
        expiresDate: Instant? = nil,
        revocationDate: Instant? = nil,
        revocationReason: Int? = nil,
        revocationPercentage: Int? = nil,
        webOrderLineItemID: String? = nil,
        subscriptionGroupID: String? = nil,
        isTrialPeriod: Bool = false,
        isInIntroOfferPeriod: Bool = false,
        offerType: Int? = nil,
        offerIdentifier: String? = nil,
        offerDiscountType: String? = nil,
        isUpgraded: Bool = false,
        ownershipType: OwnershipType = .purchased,
        accountHint: String? = nil,
        applicationUsername: String? = nil,
        environment: StoreEnvironment,
        source: TransactionSource,
        rawProductType: String? = nil,
        price: Int64? = nil,
        currency: String? = nil,
        processingFee: Int64? = nil,
        tax: Int64? = nil,
        partialRefunds: [PartialRefund]? = nil,
        refundedFee: Int64? = nil,
        payout: StatedPayout? = nil,
        customerID: String? = nil,
        paymentID: String? = nil,
        storefront: String? = nil,
        signedDate: Instant? = nil,
        appTransactionID: String? = nil,
        billingPlanType: String? = nil,
        commitment: TransactionCommitment? = nil,
        purchaseToken: String? = nil,
        replacedPurchaseToken: String? = nil
    ) {
        self.transactionID = transactionID
        self.chainID = chainID
        self.productID = productID
        self.bundleID = bundleID
        self.quantity = quantity
        self.purchaseDate = purchaseDate
        self.originalPurchaseDate = originalPurchaseDate
        self.expiresDate = expiresDate
        self.revocationDate = revocationDate
        self.revocationReason = revocationReason
        self.revocationPercentage = revocationPercentage
        self.webOrderLineItemID = webOrderLineItemID
        self.subscriptionGroupID = subscriptionGroupID
        self.isTrialPeriod = isTrialPeriod
        self.isInIntroOfferPeriod = isInIntroOfferPeriod
        self.offerType = offerType
        self.offerIdentifier = offerIdentifier
        self.offerDiscountType = offerDiscountType
        self.isUpgraded = isUpgraded
        self.ownershipType = ownershipType
        self.accountHint = accountHint
        self.applicationUsername = applicationUsername
        self.environment = environment
        self.source = source
        self.rawProductType = rawProductType
        self.price = price
        self.currency = currency
        self.processingFee = processingFee
        self.tax = tax
        self.partialRefunds = partialRefunds
        self.refundedFee = refundedFee
        self.payout = payout
        self.customerID = customerID
        self.paymentID = paymentID
        self.storefront = storefront
        self.signedDate = signedDate
        self.appTransactionID = appTransactionID
        self.billingPlanType = billingPlanType
        self.commitment = commitment
        self.purchaseToken = purchaseToken
        self.replacedPurchaseToken = replacedPurchaseToken
    }
}
