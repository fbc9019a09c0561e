import AppStore
import SubLedgerCore

/// One subscription chain: an Apple ID's subscription in one group, identified by its original transaction id.
struct SubscriptionChainRecord: Sendable {
    var originalTransactionID: String
    var appleID: String
    var bundleID: String
    var environment: StoreEnvironment
    var groupID: String
    /// The product of the current period.
    var productID: String
    /// The product the next period will be (differs after a downgrade or a crossgrade to another duration).
    var autoRenewProductID: String
    var autoRenewEnabled: Bool = true
    /// When set, renewals fail until recovery.
    var billingFailing: Bool = false
    var status: SubscriptionStatus = .active
    /// End of the current period.
    var expiresDate: Instant
    var gracePeriodExpiresDate: Instant?
    /// When the failed renewal would have happened.
    var billingRetryStartedAt: Instant?
    var expirationIntent: ExpirationIntent?
    /// Transactions of the chain, oldest first.
    var transactionIDs: [String]
    var ownership: InAppOwnershipType = .purchased
    /// For a family-shared copy: the purchaser's chain.
    var sharedFromOriginalTransactionID: String?
    /// Family members (Apple ID → their copy's original transaction id).
    var familyShares: [String: String] = [:]
    /// Renewals keep issuing iOS 6 style receipts.
    var legacyReceipts: Bool = false
    var recentSubscriptionStartDate: Instant
    var appAccountToken: String?
    var applicationUsername: String?
    var usernameLost: Bool = false
    /// A price increase announced for the next renewal: its price, and whether the customer consented (or
    /// none was needed). Without consent the subscription expires at its renewal date.
    var priceIncrease: PriceIncrease?
    /// The price the chain renews at after an increase took effect, for the product it was increased on.
    var increasedPrice: PriceIncrease?

    /// A price increase of one product of the chain.
    struct PriceIncrease: Sendable, Hashable {
        var productID: String
        var price: Int64
        var consented: Bool
    }

    /// The price of the chain's next renewal: an announced increase, else an increase already in effect for
    /// the auto-renew product, else the product's own.
    func renewalPrice(of product: ProductDefinition) -> Int64? {
        if let increase = priceIncrease, increase.productID == product.productID { return increase.price }
        if let increased = increasedPrice, increased.productID == product.productID { return increased.price }
        return product.price
    }

    var latestTransactionID: String { transactionIDs[transactionIDs.count - 1] }

    /// Whether the customer has access now (active or in grace period).
    var isEntitled: Bool { status == .active || status == .billingGracePeriod }
}
