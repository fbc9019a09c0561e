import SubLedgerCore

/// What `POST /control/bulk-chains` created: one entry per chain, with the account id it belongs to.
public struct BulkSeedResult: Sendable, Codable, Hashable {
    /// One synthetic chain.
    public struct Chain: Sendable, Codable, Hashable {
        /// The account id to import it for (`bulk-SEED-N`, also its Apple ID's local part).
        public var accountID: String
        public var originalTransactionID: String
        public var environment: StoreEnvironment
        /// `active`, `expired`, `refunded` or `upgraded`.
        public var kind: String
        /// How many transactions the chain holds.
        public var transactions: Int
    }

    public var chains: [Chain]
    /// Transactions over all chains.
    public var transactions: Int

    /// The import file for these chains (header `account_id,original_transaction_id,receipt_data,environment`).
    public var csv: String {
        var text = "account_id,original_transaction_id,receipt_data,environment\n"
        text.reserveCapacity(chains.count * 48)
        for chain in chains {
            text += "\(chain.accountID),\(chain.originalTransactionID),,\(chain.environment.rawValue)\n"
        }
        return text
    }
}
