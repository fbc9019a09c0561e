import SubLedgerCore

// What the client returns: Apple's answers with every signed item verified and decoded.

/// The result of Look Up Order ID.
public struct OrderLookup: Sendable {
    /// Raw status: 0 valid order, 1 invalid.
    public var status: Int?
    /// The verified transactions of the order.
    public var transactions: [JWSTransactionDecodedPayload]

    /// Creates a lookup result.
    public init(status: Int?, transactions: [JWSTransactionDecodedPayload]) {
        self.status = status
        self.transactions = transactions
    }
}
