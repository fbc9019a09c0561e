/// The order of transactions within one chain: by purchase date, then by their place in the chain's lineage, then
/// by id.
///
/// A store may start a new purchase on a chain at the same millisecond as the one it replaces (Google Play: an
/// upgrade, downgrade or re-signup makes a new purchase token naming the one it replaced). Which came later is then
/// a fact of the lineage, not of the ids' spelling: a transaction bought under a replacing purchase comes after
/// every transaction of the purchases it replaced. Transactions that name no lineage (the App Store's) are ordered
/// by purchase date and id, as before.
public struct TransactionOrder: Sendable {
    /// How many replacements lie between each replacing purchase token and the lineage's first token.
    private let depthByToken: [String: Int]

    /// The order for transactions of one chain: `transactions` must include every transaction whose purchase token
    /// names a replaced one (the chain's stored transactions and the arriving ones).
    public init(_ transactions: some Sequence<Transaction>) {
        var replaced: [String: String] = [:]
        for transaction in transactions {
            guard let token = transaction.purchaseToken, let previous = transaction.replacedPurchaseToken,
                previous != token
            else { continue }
            replaced[token] = previous
        }
        var depths: [String: Int] = [:]
        for token in replaced.keys {
            var depth = 0
            var current = token
            var seen: Set<String> = [token]
            while let previous = replaced[current], seen.insert(previous).inserted {
                depth += 1
                current = previous
            }
            depths[token] = depth
        }
        depthByToken = depths
    }

    /// Whether `first` comes before `second`.
    public func precedes(_ first: Transaction, _ second: Transaction) -> Bool {
        if first.purchaseDate != second.purchaseDate { return first.purchaseDate < second.purchaseDate }
        let firstDepth = depth(of: first)
        let secondDepth = depth(of: second)
        if firstDepth != secondDepth { return firstDepth < secondDepth }
        return first.transactionID < second.transactionID
    }

    /// The lineage depth of `transaction`'s purchase token: 0 for a lineage's first token and for transactions that
    /// name no token.
    public func depth(of transaction: Transaction) -> Int {
        transaction.purchaseToken.flatMap { depthByToken[$0] } ?? 0
    }
}
