/// What applying one input decided, for the storage layer to write in the same database transaction.
public struct LedgerDecision: Hashable, Sendable, Codable {
    /// Every chain the input touched, complete as it now stands (upsert the chain row, its transactions;
    /// its `bindingChanges` already include the new ones below).
    public var updatedChains: [ChainSnapshot]
    /// New entries (insert with `ON CONFLICT (idempotency_key) DO NOTHING`).
    public var entries: [LedgerEntry]
    /// New ownership changes, also present in `updatedChains`.
    public var bindingChanges: [BindingChange]
    /// One per distinct transaction of the input (by environment and transaction id).
    public var transactionOutcomes: [TransactionOutcome]
    /// One per renewal info of the input.
    public var renewalInfoOutcomes: [RenewalInfoOutcome]
    /// Orders this input fulfilled (or re-pointed to an earlier purchase on the same chain), in their new state.
    public var fulfilledOrders: [Order]

    public init(
        updatedChains: [ChainSnapshot] = [],
        entries: [LedgerEntry] = [],
        bindingChanges: [BindingChange] = [],
        transactionOutcomes: [TransactionOutcome] = [],
        renewalInfoOutcomes: [RenewalInfoOutcome] = [],
        fulfilledOrders: [Order] = []
    ) {
        self.updatedChains = updatedChains
        self.entries = entries
        self.bindingChanges = bindingChanges
        self.transactionOutcomes = transactionOutcomes
        self.renewalInfoOutcomes = renewalInfoOutcomes
        self.fulfilledOrders = fulfilledOrders
    }
}
