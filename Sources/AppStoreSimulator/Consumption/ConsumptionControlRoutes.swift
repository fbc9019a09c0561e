import Hummingbird

/// The control routes of consumption requests (docs/reference/appstore-sim.md): `POST
/// /control/transactions/{id}/consumption-request` makes Apple send `CONSUMPTION_REQUEST`; `GET /control/consumption`
/// lists the Send Consumption Information calls received, with their answers.
struct ConsumptionControlRoutes: Sendable {
    /// `POST /control/transactions/{id}/consumption-request`'s optional body.
    struct ConsumptionRequestBody: Decodable {
        /// Apple's `consumptionRequestReason` (`UNINTENDED_PURCHASE`, `FULFILLMENT_ISSUE`,
        /// `UNSATISFIED_WITH_PURCHASE`, `LEGAL`, `OTHER`); absent: the notification states none.
        var reason: String?
    }

    let control: SimulatorControl

    func register(on group: RouterGroup<BasicRequestContext>) {
        group.post("transactions/:id/consumption-request") { request, context in
            try await ControlRoutes.run(request, ConsumptionRequestBody.self, allowEmpty: true) {
                body async throws(SimulatorError) in
                try await control.requestConsumption(try ControlRoutes.parameter(context, "id"), reason: body.reason)
            }
        }
        group.get("consumption") { _, _ in ControlRoutes.json(control.receivedConsumptionInformation()) }
    }
}
