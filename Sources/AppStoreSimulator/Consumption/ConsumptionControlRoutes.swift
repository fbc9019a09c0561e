import Hummingbird

/// The control routes of consumption requests (docs/appstore-sim.md): `POST /control/transactions/{id}/consumption-request`
/// makes Apple send `CONSUMPTION_REQUEST`; `GET /control/consumption` lists the Send Consumption Information
/// calls received, with their answers.
struct ConsumptionControlRoutes: Sendable {
    let control: SimulatorControl

    func register(on group: RouterGroup<BasicRequestContext>) {
        group.post("transactions/:id/consumption-request") { _, context in
            try await ControlRoutes.run { () async throws(SimulatorError) in
                try await control.requestConsumption(try ControlRoutes.parameter(context, "id"))
            }
        }
        group.get("consumption") { _, _ in ControlRoutes.json(control.receivedConsumptionInformation()) }
    }
}
