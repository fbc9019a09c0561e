/// What one apply's decision owes Google Play: every purchase token it credited must be acknowledged (or, for a
/// consumable, consumed) within three days, or Google refunds the purchase. The storage layer records it in the
/// apply's transaction; the acknowledgement sender calls Google after the commit, so a purchase is acknowledged
/// exactly when its credit is durable, and retried until Google answers, even when the app died in between.
public struct GooglePlayAcknowledgement: Hashable, Sendable {
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        /// `purchases.subscriptions.acknowledge`.
        case acknowledgeSubscription = "acknowledge_subscription"
        /// `purchases.products.acknowledge` (a non-consumable or non-renewing product).
        case acknowledgeProduct = "acknowledge_product"
        /// `purchases.products.consume` (a consumable: consuming acknowledges it and lets it be bought again).
        case consumeProduct = "consume_product"
    }

    public var kind: Kind
    public var environment: StoreEnvironment
    /// The purchase token to acknowledge: its identity (one acknowledgement per token, whatever renews on it).
    public var purchaseToken: String
    /// The product id Google's acknowledge and consume methods name.
    public var productID: String
    /// The order that was credited (for the operator: the row names what it acknowledges).
    public var transactionID: String
    /// The account the purchase was credited to.
    public var account: AccountID

    public init(
        kind: Kind, environment: StoreEnvironment, purchaseToken: String, productID: String, transactionID: String,
        account: AccountID
    ) {
        self.kind = kind
        self.environment = environment
        self.purchaseToken = purchaseToken
        self.productID = productID
        self.transactionID = transactionID
        self.account = account
    }

    /// What `decision` owes Google, in a stable order: for each Google Play transaction to which it recorded a
    /// grant, an extension or a credit (its purchase credited to an account), the acknowledgement of its purchase
    /// token. A renewal on a token acknowledged before owes the same acknowledgement again, which the storage
    /// layer records once.
    public static func owed(by decision: LedgerDecision, app: App) -> [GooglePlayAcknowledgement] {
        let credited = Set(
            decision.entries.filter { $0.kind == .grant || $0.kind == .extend || $0.kind == .credit }
                .map(\.transactionID))
        var owed: [GooglePlayAcknowledgement] = []
        var seen = Set<String>()
        for chain in decision.updatedChains {
            for known in chain.transactions {
                let transaction = known.transaction
                guard transaction.store == .googlePlay, let token = transaction.purchaseToken,
                    let account = known.account, credited.contains(known.transactionID),
                    let product = app.product(transaction.productID), seen.insert(token).inserted
                else { continue }
                let kind: Kind =
                    switch product.type {
                    case .autoRenewable: .acknowledgeSubscription
                    case .consumable: .consumeProduct
                    case .nonConsumable, .nonRenewing: .acknowledgeProduct
                    }
                owed.append(
                    GooglePlayAcknowledgement(
                        kind: kind, environment: transaction.environment, purchaseToken: token,
                        productID: transaction.productID, transactionID: transaction.transactionID, account: account))
            }
        }
        return owed
    }
}
