import SubLedgerCore

// What the client returns: Apple's answers with every signed item verified and decoded.

/// One page of transaction history (or refund history), every transaction verified.
public struct TransactionHistoryPage: Sendable {
    /// The token for the next page.
    public var revision: String?
    /// Whether another page follows.
    public var hasMore: Bool
    /// The verified transactions of this page.
    public var transactions: [JWSTransactionDecodedPayload]

    /// Creates a page.
    public init(revision: String?, hasMore: Bool, transactions: [JWSTransactionDecodedPayload]) {
        self.revision = revision
        self.hasMore = hasMore
        self.transactions = transactions
    }
}
