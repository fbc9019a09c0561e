import Hummingbird

extension ControlRoutes {
    /// `POST /control/apps/{bundle_id}/external-purchase-tokens`: a token as StoreKit's external purchase API gives
    /// the app; `POST /control/external-purchase-tokens/{external_purchase_id}/notify`: Apple's
    /// `EXTERNAL_PURCHASE_TOKEN` notification for it; `GET /control/external-purchase-reports`: the reports the
    /// app's server sent that were accepted.
    func registerExternalPurchase(on group: RouterGroup<BasicRequestContext>) {
        group.post("apps/:bundleID/external-purchase-tokens") { request, context in
            try await Self.run(request, ExternalPurchaseTokenRequest.self, allowEmpty: true) {
                body throws(SimulatorError) in
                try control.issueExternalPurchaseToken(bundleID: try Self.parameter(context, "bundleID"), body)
            }
        }
        group.post("external-purchase-tokens/:id/notify") { request, context in
            try await Self.run(request, ExternalPurchaseNotificationRequest.self, allowEmpty: true) {
                body async throws(SimulatorError) in
                try await control.sendExternalPurchaseTokenNotification(
                    externalPurchaseID: try Self.parameter(context, "id"), subtype: body.subtype ?? "UNREPORTED")
            }
        }
        group.get("external-purchase-reports") { _, _ in Self.json(control.externalPurchaseReports()) }
    }
}
