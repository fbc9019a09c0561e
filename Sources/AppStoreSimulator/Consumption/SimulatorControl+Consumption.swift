import AppStore
import SubLedgerCore

extension SimulatorControl {
    /// A customer asks Apple for a refund of `transactionID`: Apple sends `CONSUMPTION_REQUEST` (V2 only; V1
    /// notifications never carried it) and waits up to 12 hours for Send Consumption Information.
    public func requestConsumption(_ transactionID: String) async throws(SimulatorError) -> ConsumptionRequestResult {
        let (_, uuids) = try engine.mutate { state, _ throws(SimulatorError) in
            let record = try state.transaction(transactionID)
            guard record.ownership == .purchased else {
                throw SimulatorError(.badRequest, "only the purchaser can ask for a refund")
            }
            guard record.revocationDate == nil else {
                throw SimulatorError(.conflict, "transaction \(transactionID) is already refunded")
            }
            state.emit(
                "CONSUMPTION_REQUEST", key: AccountAppKey(appleID: record.appleID, bundleID: record.bundleID),
                transactionID: transactionID)
        }
        await engine.deliverDue()
        return ConsumptionRequestResult(transactionID: transactionID, notificationUUIDs: uuids)
    }

    /// Every Send Consumption Information call received so far, oldest first.
    public func receivedConsumptionInformation() -> [ReceivedConsumptionInformation] {
        (try? engine.read { state in state.consumptionReceived }) ?? []
    }
}
