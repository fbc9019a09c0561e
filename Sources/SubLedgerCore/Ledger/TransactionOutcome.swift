/// What became of one transaction of an input, told from the submitter's side.
public struct TransactionOutcome: Hashable, Sendable, Codable {
    /// The result; never names an account other than the submitter when there is one.
    public enum Result: Hashable, Sendable, Codable {
        /// Granted to (or, known already, newly updated for) this account: the submitter, or with no
        /// submitter, the chain's owner.
        case applied(to: AccountID)
        /// Already known, already this account's, and nothing new in it.
        case duplicate
        /// The chain belongs to another account that keeps it; the submitter gets nothing from it.
        case belongsToAnotherAccount
        /// No owner and nobody to attribute it to: kept until an account submits a receipt containing it.
        case unclaimed
        /// No owner, no submitter, and a token that does not resolve yet: kept unclaimed, not guessed.
        case deferred
        /// Not stored: see the reason.
        case ignored(IgnoredTransaction.Reason)
    }

    public var environment: StoreEnvironment
    public var transactionID: String
    public var chainID: String
    public var productID: String
    public var result: Result

    public init(
        environment: StoreEnvironment,
        transactionID: String,
        chainID: String,
        productID: String,
        result: Result
    ) {
        self.environment = environment
        self.transactionID = transactionID
        self.chainID = chainID
        self.productID = productID
        self.result = result
    }
}
