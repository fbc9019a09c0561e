extension Transaction {
    /// Whether this transaction is its chain's first purchase, which grants (reason `purchase`), rather than a
    /// renewal, which extends.
    ///
    /// The App Store's and Google Play's first transaction carries the chain's own id (the original transaction id,
    /// the lineage's first order id); a one-time Stripe payment is a chain of one, its id the chain's. A Stripe
    /// subscription's chain is the subscription (`sub_…`) and each paid invoice (`in_…`) a transaction, so ids cannot
    /// tell: its first invoice is the one whose period begins at the subscription's start (`purchaseDate` equal to
    /// `originalPurchaseDate`, as `StripeSubscriptionReading` maps them); a renewal or a plan change begins later
    /// (`Store.tellsFirstPurchaseByPeriod`).
    /// A property of the transaction alone, so the entries derived from it do not depend on which of the chain's
    /// transactions arrived first.
    public var startsChain: Bool {
        if transactionID == chainID { return true }
        guard store.tellsFirstPurchaseByPeriod, let originalPurchaseDate else { return false }
        return purchaseDate == originalPurchaseDate
    }
}
