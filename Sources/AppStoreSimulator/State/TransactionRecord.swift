import AppStore
import SubLedgerCore

/// One transaction as the simulated App Store stores it: a purchase, a renewal or a family-shared copy.
struct TransactionRecord: Sendable {
    var transactionID: String
    var originalTransactionID: String
    var webOrderLineItemID: String?
    var productID: String
    var productType: ProductKind
    var subscriptionGroupID: String?
    var bundleID: String
    var appleID: String
    var environment: StoreEnvironment
    var purchaseDate: Instant
    var originalPurchaseDate: Instant
    var expiresDate: Instant?
    var quantity: Int
    /// When Apple refunded or revoked it, or, on an upgraded-from transaction (`isUpgraded`), when the upgrade ended
    /// its plan (with no reason).
    var revocationDate: Instant?
    var revocationReason: Int?
    /// The refunded share of a refund, thousandths of a percent (100 000: the whole price); `nil` when not
    /// refunded or revoked through Family Sharing.
    var revocationPercentage: Int?
    var isUpgraded: Bool = false
    /// The StoreKit 2 token, or a UUID-shaped StoreKit 1 username, as the App Store recorded it.
    var appAccountToken: String?
    /// The StoreKit 1 `applicationUsername` the app set.
    var applicationUsername: String?
    /// The empty-username bug: the app set a username but Apple recorded an empty one.
    var usernameLost: Bool = false
    var ownership: InAppOwnershipType = .purchased
    var reason: TransactionReason
    var isFreeTrial: Bool = false
    /// The ISO 8601 duration of the offer the transaction was bought with (`P1W` for a week's free trial),
    /// Apple's `offerPeriod`; `nil` without an offer.
    var offerPeriod: String?
    /// The offer other than an introductory free trial that priced this transaction, if any.
    var offer: OfferRedemption?
    /// For a commitment plan's period: which period of how many, and when the commitment ends.
    var commitment: CommitmentPeriod?

    /// One period of a monthly plan with a commitment.
    struct CommitmentPeriod: Sendable, Hashable {
        var number: Int
        var total: Int
        var endsAt: Instant
        /// The whole commitment's price.
        var price: Int64
    }
    var orderID: String
    var price: Int64
    var currency: String
    var storefront: String
    /// Consumables leave the receipt once finished.
    var finished: Bool = false
    /// Issued with an iOS 6 style transaction receipt.
    var legacyReceipt: Bool = false
    /// Creation order, for stable listings.
    var sequence: Int

    /// What receipts and payloads show as `app_account_token` / `appAccountToken`.
    var visibleAppAccountToken: String? {
        if usernameLost { return "" }
        return appAccountToken
    }

    /// Whether it was refunded or revoked (its revocation date is not an upgrade's end).
    var isRefunded: Bool { revocationDate != nil && (!isUpgraded || revocationReason != nil) }

    /// Whether it is still in the app receipt (finished consumables are dropped, as on devices).
    var isInReceipt: Bool { !(productType == .consumable && finished) }
}
