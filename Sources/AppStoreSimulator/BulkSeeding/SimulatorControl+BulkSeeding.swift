extension SimulatorControl {
    /// Creates synthetic subscription chains in bulk (see `BulkSeedRequest`); sends no notifications.
    public func seedChains(_ request: BulkSeedRequest) throws(SimulatorError) -> BulkSeedResult {
        try engine.mutate { state, context throws(SimulatorError) in try state.seedChains(request, context) }.0
    }
}

extension SimulatorControl {
    /// The transaction ids of a subscription chain, oldest first (for comparing an import with the live path).
    public func transactionIDs(ofChain originalTransactionID: String) throws(SimulatorError) -> [String] {
        try engine.read { state throws(SimulatorError) in
            try state.chain(containing: originalTransactionID).transactionIDs
        }
    }
}
