import Hummingbird

extension ControlRoutes {
    /// `GET /control/apple-ids/{apple_id}/unfinished?bundle_id=`: the device's unfinished transactions
    /// (`SimulatorControl.unfinishedTransactions`); `GET /control/server-write-backs`: the Set App Account Token and
    /// Finish Transaction calls the app's server made.
    func registerWriteBacks(on group: RouterGroup<BasicRequestContext>) {
        group.get("apple-ids/:appleID/unfinished") { request, context in
            try await Self.run { () throws(SimulatorError) in
                guard let bundleID = request.uri.queryParameters.get("bundle_id") else {
                    throw SimulatorError(.badRequest, "bundle_id query parameter is required")
                }
                return try control.unfinishedTransactions(
                    appleID: try Self.parameter(context, "appleID"), bundleID: bundleID)
            }
        }
        group.get("server-write-backs") { _, _ in Self.json(control.serverWriteBacks()) }
    }
}
