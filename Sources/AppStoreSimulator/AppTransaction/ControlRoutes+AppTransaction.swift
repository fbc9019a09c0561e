import Hummingbird

extension ControlRoutes {
    /// `GET /control/apple-ids/{apple_id}/app-transaction?bundle_id=`: what `AppTransaction.shared` gives the
    /// Apple ID's device (`SimulatorControl.appTransaction(appleID:bundleID:)`).
    func registerAppTransaction(on group: RouterGroup<BasicRequestContext>) {
        group.get("apple-ids/:appleID/app-transaction") { request, context in
            try await Self.run { () throws(SimulatorError) in
                guard let bundleID = request.uri.queryParameters.get("bundle_id") else {
                    throw SimulatorError(.badRequest, "bundle_id query parameter is required")
                }
                return try control.appTransaction(appleID: try Self.parameter(context, "appleID"), bundleID: bundleID)
            }
        }
    }
}
