import AppStore
import SubLedgerCore

extension SimulatorControl {
    /// The reasons a customer gives Apple for a refund request (`consumptionRequestReason`).
    public static let consumptionRequestReasons: Set<String> = [
        "UNINTENDED_PURCHASE", "FULFILLMENT_ISSUE", "UNSATISFIED_WITH_PURCHASE", "LEGAL", "OTHER",
    ]

    /// A customer asks Apple for a refund of `transactionID`, for `reason` when given: Apple sends
    /// `CONSUMPTION_REQUEST` (V2 only; V1 notifications never carried it) with the reason as
    /// `consumptionRequestReason`, and waits up to 12 hours for Send Consumption Information.
    public func requestConsumption(_ transactionID: String, reason: String? = nil) async throws(SimulatorError)
        -> ConsumptionRequestResult
    {
        if let reason, !Self.consumptionRequestReasons.contains(reason) {
            throw SimulatorError(
                .badRequest,
                "reason must be one of \(Self.consumptionRequestReasons.sorted().joined(separator: ", "))")
        }
        let (_, uuids) = try engine.mutate { state, _ throws(SimulatorError) in
            let record = try state.transaction(transactionID)
            guard record.ownership == .purchased else {
                throw SimulatorError(.badRequest, "only the purchaser can ask for a refund")
            }
            guard record.revocationDate == nil else {
                throw SimulatorError(.conflict, "transaction \(transactionID) is already refunded")
            }
            state.events.append(
                SimulatorEvent(
                    type: "CONSUMPTION_REQUEST", key: AccountAppKey(appleID: record.appleID, bundleID: record.bundleID),
                    transactionID: transactionID, consumptionRequestReason: reason))
        }
        await engine.deliverDue()
        return ConsumptionRequestResult(transactionID: transactionID, notificationUUIDs: uuids)
    }

    /// Every Send Consumption Information call received so far, oldest first.
    public func receivedConsumptionInformation() -> [ReceivedConsumptionInformation] {
        (try? engine.read { state in state.consumptionReceived }) ?? []
    }
}
