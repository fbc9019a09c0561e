/// One chain as the storage layer loads it (after `SELECT ... FOR UPDATE`) and writes it back.
///
/// Three tables' worth of rows: the chain row, its transactions (with their assigned accounts and
/// revocation facts) and its ownership history.
public struct ChainSnapshot: Hashable, Sendable, Codable {
    /// The chain row: its key, owner, product and latest renewal info.
    public var header: SubscriptionChain
    /// In `TransactionOrder`: by purchase date, then lineage, then id.
    public var transactions: [KnownTransaction]
    /// The chain's ownership history, by `sequence`; the first entry (if any) is the first claim.
    public var bindingChanges: [BindingChange]

    // The chain row is encoded under its earlier name, so JSON written before the rename still decodes.
    private enum CodingKeys: String, CodingKey {
        case header = "chain"
        case transactions, bindingChanges
    }

    public init(header: SubscriptionChain, transactions: [KnownTransaction] = [], bindingChanges: [BindingChange] = [])
    {
        self.header = header
        self.transactions = transactions
        self.bindingChanges = bindingChanges
    }

    public var key: ChainKey { header.key }

    /// The owner at `instant`: the first claimant from the start of the chain, then each transfer's new owner
    /// from its `at` on.
    public func owner(at instant: Instant) -> AccountID? {
        guard let first = bindingChanges.first else { return nil }
        var owner = first.to
        for change in bindingChanges.dropFirst() where change.at <= instant {
            owner = change.to
        }
        return owner
    }

    /// The stored transaction with id `transactionID`, if any.
    public func transaction(_ transactionID: String) -> KnownTransaction? {
        transactions.first { $0.transactionID == transactionID }
    }

    /// The latest transaction purchased at or before `instant`, in `TransactionOrder`, among those the chain's state
    /// is made of (`isCredited`).
    public func latestTransaction(at instant: Instant) -> KnownTransaction? {
        transactions.last { $0.transaction.purchaseDate <= instant && isCredited($0) }
    }

    /// Whether `known` counts in the chain's state, entitlements and latest expiry: on an owned chain, a transaction
    /// credited to an account; a purchase that waits unclaimed for its submitter (made after the owner's
    /// subscription lapsed and seen first in a notification, `OwnershipRule.heldByOwner`) is nobody's yet and
    /// cannot make the owner look active. On a chain nobody owns, every transaction.
    public func isCredited(_ known: KnownTransaction) -> Bool {
        header.owner == nil || known.account != nil
    }
}

extension ChainSnapshot {
    /// Puts `transactions` in their documented order (`TransactionOrder`).
    public mutating func sortTransactions() {
        let order = TransactionOrder(transactions.map(\.transaction))
        transactions.sort { order.precedes($0.transaction, $1.transaction) }
    }

    /// The purchase token of the chain's latest transaction in `TransactionOrder` (Google Play: the lineage's newest
    /// token SubLedger knows), if it names one.
    public var latestPurchaseToken: String? { transactions.last?.transaction.purchaseToken }
}
