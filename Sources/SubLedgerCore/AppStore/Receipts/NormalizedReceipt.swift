/// A receipt after the ledger's normalization: one version per transaction, in purchase order, checked
/// against the catalog, with renewal info attached to its chain.
public struct NormalizedReceipt: Hashable, Sendable, Codable {
    /// One chain as the receipt shows it.
    public struct Chain: Hashable, Sendable, Codable {
        public var key: ChainKey
        /// In purchase order.
        public var transactions: [Transaction]
        /// The newest renewal info the receipt holds for this chain.
        public var renewalInfo: RenewalInfo?

        public init(key: ChainKey, transactions: [Transaction], renewalInfo: RenewalInfo?) {
            self.key = key
            self.transactions = transactions
            self.renewalInfo = renewalInfo
        }
    }

    public var bundleID: String
    public var environment: StoreEnvironment
    /// When Apple produced the receipt (`requestDate`, else `creationDate`): the observation time of its
    /// transactions, which carry no signed date of their own.
    public var observedAt: Instant?
    /// Deduplicated and sorted by (`purchaseDate`, `transactionID`); only products the catalog knows.
    public var transactions: [Transaction]
    /// The newest renewal info per chain, sorted by chain.
    public var renewalInfo: [RenewalInfo]
    /// Transactions left out, with the reason (unknown product, another app, another environment).
    public var ignored: [IgnoredTransaction]

    public init(
        bundleID: String,
        environment: StoreEnvironment,
        observedAt: Instant?,
        transactions: [Transaction],
        renewalInfo: [RenewalInfo],
        ignored: [IgnoredTransaction]
    ) {
        self.bundleID = bundleID
        self.environment = environment
        self.observedAt = observedAt
        self.transactions = transactions
        self.renewalInfo = renewalInfo
        self.ignored = ignored
    }

    /// The receipt grouped by chain (original transaction id), sorted by chain; chains known only from
    /// renewal info are included with no transactions.
    public var chains: [Chain] {
        var transactionsByChain: [ChainKey: [Transaction]] = [:]
        for transaction in transactions { transactionsByChain[transaction.chainKey, default: []].append(transaction) }
        var renewalByChain: [ChainKey: RenewalInfo] = [:]
        for info in renewalInfo { renewalByChain[info.chainKey] = info }
        return Set(transactionsByChain.keys).union(renewalByChain.keys).sorted().map {
            Chain(key: $0, transactions: transactionsByChain[$0] ?? [], renewalInfo: renewalByChain[$0])
        }
    }
}
