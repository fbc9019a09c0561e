import AppStore
import SubLedgerCore

extension SimulatorControl {
    /// A new external purchase token for the app, created at the simulated now, as StoreKit's
    /// `ExternalPurchase`/`ExternalPurchaseCustomLink` APIs hand one to the app.
    public func issueExternalPurchaseToken(bundleID: String, _ request: ExternalPurchaseTokenRequest)
        throws(SimulatorError) -> IssuedExternalPurchaseToken
    {
        let now = engine.clock.now()
        return try engine.mutate { state, _ throws(SimulatorError) in
            try state.issueExternalPurchaseToken(bundleID: bundleID, request, now: now)
        }.0
    }

    /// Sends Apple's `EXTERNAL_PURCHASE_TOKEN` notification (subtype `UNREPORTED` or `ACTIVE_TOKEN_REMINDER`)
    /// for an issued token, signed like every V2 notification, whether or not the token was reported.
    public func sendExternalPurchaseTokenNotification(externalPurchaseID: String, subtype: String)
        async throws(SimulatorError) -> NotificationSummary
    {
        let uuids = try engine.mutate { state, _ throws(SimulatorError) in
            try state.emitExternalPurchaseTokenNotification(externalPurchaseID, subtype: subtype)
        }.1
        await engine.deliverDue()
        return try engine.read { state throws(SimulatorError) in
            guard let uuid = uuids.first, let index = state.notifications.indexByUUID[uuid] else {
                throw SimulatorError(.internalError, "external purchase notification was not created")
            }
            return state.notifications.records[index].summary
        }
    }

    /// Every external purchase report accepted so far, oldest first.
    public func externalPurchaseReports() -> [ReceivedExternalPurchaseReport] {
        (try? engine.read { state in state.externalPurchases.received }) ?? []
    }

    /// The report accepted for `bundleID` in `environment` under `requestIdentifier`, as Retrieve External Purchase
    /// Report answers it; nil when none was.
    public func externalPurchaseReport(
        bundleID: String, environment: StoreEnvironment = .sandbox, requestIdentifier: String
    ) -> ExternalPurchaseReport? {
        let key = ExternalPurchaseBook.ReportKey(
            scope: .init(bundleID: bundleID, environment: environment), requestIdentifier: requestIdentifier)
        return (try? engine.read { state in state.externalPurchases.reports[key] }) ?? nil
    }
}
