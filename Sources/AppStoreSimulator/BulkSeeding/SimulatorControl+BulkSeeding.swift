extension SimulatorControl {
    /// Creates synthetic subscription chains in bulk (see `BulkSeedRequest`); sends no notifications.
    public func seedChains(_ request: BulkSeedRequest) throws(SimulatorError) -> BulkSeedResult {
        try engine.mutate { state, context throws(SimulatorError) in try state.seedChains(request, context) }.0
    }
}
