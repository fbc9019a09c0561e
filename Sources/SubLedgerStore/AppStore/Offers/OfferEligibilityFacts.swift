import SubLedgerCore

/// What the ledger knows about one account that decides its offers in one subscription group: the introductory
/// offer it already had there, if any, and a transaction id of its own for StoreKit 2's signed offers.
public struct OfferEligibilityFacts: Sendable, Hashable {
    /// The earliest transaction in the group bought with an introductory offer (free trial, pay as you go or
    /// pay up front), on any chain the account owns or has owned; `nil` when there is none.
    public var introductoryOffer: IntroductoryOfferUse?
    /// The account's most recent transaction of the app, in any product, or `nil`: StoreKit 2's offer JWS
    /// names "any transaction that belongs to the customer".
    public var latestTransactionID: String?

    public init(introductoryOffer: IntroductoryOfferUse?, latestTransactionID: String?) {
        self.introductoryOffer = introductoryOffer
        self.latestTransactionID = latestTransactionID
    }

    /// Apple's rule: a customer who has received an introductory offer for a product of the group is not
    /// eligible for another in that group.
    public var isEligibleForIntroductoryOffer: Bool { introductoryOffer == nil }
}

/// One transaction that used an introductory offer.
public struct IntroductoryOfferUse: Sendable, Hashable {
    public var environment: StoreEnvironment
    public var transactionID: String
    public var chainID: String
    public var productID: String
    public var purchaseDate: Instant

    public init(
        environment: StoreEnvironment, transactionID: String, chainID: String, productID: String,
        purchaseDate: Instant
    ) {
        self.environment = environment
        self.transactionID = transactionID
        self.chainID = chainID
        self.productID = productID
        self.purchaseDate = purchaseDate
    }
}
