/// Everything the ledger needs to know before applying one input, as the storage layer loads it.
public struct LedgerSnapshot: Hashable, Sendable, Codable {
    /// The stored chains among `LedgerInput.chainKeys`, locked for the transaction; missing ones are new.
    public var chains: [ChainSnapshot]
    /// Accounts of the input's app named by the input's `accountTokens`.
    public var accountsByToken: [AccountToken: AccountID]
    /// Orders whose id is one of the input's `accountTokens`, plus the submitter's pending orders for the
    /// input's app (the empty-token fallback).
    public var orders: [Order]

    public init(chains: [ChainSnapshot] = [], accountsByToken: [AccountToken: AccountID] = [:], orders: [Order] = []) {
        self.chains = chains
        self.accountsByToken = accountsByToken
        self.orders = orders
    }
}
