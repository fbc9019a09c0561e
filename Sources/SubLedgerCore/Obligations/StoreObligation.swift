/// A call to a store that one apply's decision owes once it commits: telling Apple which account a chain is bound
/// to, finishing an Apple purchase, answering Apple's consumption request, acknowledging or consuming a Google Play
/// purchase. The storage layer records
/// each in the apply's transaction (the store obligations outbox), and the obligation sender makes the call after
/// the commit, so a call is made exactly when its cause was recorded, and retried until the store answers, even
/// when the process that applied died in between.
public struct StoreObligation: Hashable, Sendable {
    /// What is owed. Each kind belongs to one store (`store`); a switch over it names every call SubLedger makes.
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        /// App Store: tell Apple the account a chain was bound to (Set App Account Token on its original
        /// transaction), so its later payloads name the account.
        case setAppAccountToken = "set_app_account_token"
        /// App Store: the transaction's content was delivered to the account (Finish Transaction).
        case finishTransaction = "finish_transaction"
        /// App Store: answer a consumption request (a customer asked Apple for a refund) with Send Consumption
        /// Information, within Apple's 12 hours; owed by the CONSUMPTION_REQUEST notification's apply.
        case sendConsumptionInformation = "send_consumption_information"
        /// App Store: send an external purchase report (Send External Purchase Report) of a token handed over with a
        /// web order, or named by an `EXTERNAL_PURCHASE_TOKEN` notification, and confirm Apple holds it (Retrieve
        /// External Purchase Report); owed by the apply that credits or revokes a transaction of the token's chain.
        case reportExternalPurchase = "report_external_purchase"
        /// Google Play: acknowledge a subscription purchase (Google refunds one left unacknowledged three days).
        case acknowledgeSubscription = "acknowledge_subscription"
        /// Google Play: acknowledge a non-consumable or non-renewing one-time purchase.
        case acknowledgeProduct = "acknowledge_product"
        /// Google Play: consume a consumable purchase (which acknowledges it and lets it be bought again).
        case consumeProduct = "consume_product"

        /// The store the call goes to.
        public var store: Store {
            switch self {
            case .setAppAccountToken, .finishTransaction, .sendConsumptionInformation, .reportExternalPurchase:
                .appStore
            case .acknowledgeSubscription, .acknowledgeProduct, .consumeProduct: .googlePlay
            }
        }
    }

    /// What only the obligation's store needs, in that store's words.
    public enum Payload: Hashable, Sendable {
        /// App Store: the binding's position in the chain's history that Set App Account Token tells (0 for
        /// Finish Transaction). With the kind and the transaction it makes the obligation's identity: each binding
        /// is told once, and an older one still waiting when a newer exists is superseded.
        case appStore(bindingSequence: Int)
        /// App Store: the consumption request Send Consumption Information answers (the identity: one answer per
        /// request), by its id in the storage layer.
        case consumptionRequest(id: Int64)
        /// App Store: the external purchase report to send (the identity: one obligation per report), by its id in
        /// the storage layer.
        case externalPurchaseReport(id: Int64)
        /// Google Play: the purchase token acknowledged or consumed (the identity: one call per token, whatever
        /// renews on it) and the product id Google's methods name.
        case googlePlay(purchaseToken: String, productID: String)
    }

    public var kind: Kind
    /// The chain the obligation concerns.
    public var chain: ChainKey
    /// The transaction it concerns: the chain's original transaction for a binding, else the credited one.
    public var transactionID: String
    /// The account the chain was bound to, or the purchase credited to (the account hint the call carries, or the
    /// account the operator sees the call was for); nil for a consumption answer, which is about a purchase (its
    /// account is the chain's owner when the answer is decided).
    public var account: AccountID?
    public var payload: Payload

    public init(kind: Kind, chain: ChainKey, transactionID: String, account: AccountID?, payload: Payload) {
        self.kind = kind
        self.chain = chain
        self.transactionID = transactionID
        self.account = account
        self.payload = payload
    }

    /// The store the obligation's call goes to.
    public var store: Store { kind.store }

    /// Set App Account Token on `chain`'s original transaction, naming `account`, for the binding at
    /// `bindingSequence` of the chain's history.
    public static func setAppAccountToken(chain: ChainKey, bindingSequence: Int, account: AccountID) -> Self {
        StoreObligation(
            kind: .setAppAccountToken, chain: chain, transactionID: chain.chainID, account: account,
            payload: .appStore(bindingSequence: bindingSequence))
    }

    /// Finish Transaction for `transactionID` of `chain`, credited to `account`.
    public static func finishTransaction(_ transactionID: String, chain: ChainKey, account: AccountID) -> Self {
        StoreObligation(
            kind: .finishTransaction, chain: chain, transactionID: transactionID, account: account,
            payload: .appStore(bindingSequence: 0))
    }
}
