import AppStore
import Foundation
import SubLedgerCore

/// The control operations, callable directly from Swift (tests) and served as JSON under `/control`.
///
/// Every purchase-changing action answers with what the device now holds (`ActionResult`), and returns
/// after the notifications it caused had their first delivery attempt.
public struct SimulatorControl: Sendable {
    let engine: SimulatorEngine

    // MARK: Catalog and accounts

    /// Creates an app (and its products); the answer carries the Server API credentials.
    public func createApp(_ definition: AppDefinition) throws(SimulatorError) -> AppDescription {
        try engine.mutate { state, _ throws(SimulatorError) in try state.createApp(definition) }.0
    }

    /// Every app.
    public func apps() -> [AppDescription] {
        (try? engine.read { state in state.apps.values.map(\.description).sorted { $0.bundleID < $1.bundleID } })
            ?? []
    }

    /// One app.
    public func app(_ bundleID: String) throws(SimulatorError) -> AppDescription {
        try engine.read { state throws(SimulatorError) in try state.app(bundleID).description }
    }

    /// Changes an app's grace period or notification endpoint.
    public func updateApp(_ bundleID: String, _ update: AppUpdate) throws(SimulatorError) -> AppDescription {
        try engine.mutate { state, _ throws(SimulatorError) in
            try state.updateApp(
                bundleID: bundleID, gracePeriodDays: update.gracePeriodDays, notificationURL: update.notificationURL,
                notificationVersion: update.notificationVersion)
        }.0
    }

    /// Adds or replaces a product of an app.
    public func addProduct(bundleID: String, _ product: ProductDefinition) throws(SimulatorError) -> AppDescription {
        try engine.mutate { state, _ throws(SimulatorError) in try state.addProduct(bundleID: bundleID, product) }.0
    }

    /// Creates an Apple ID.
    public func createAppleID(_ definition: AppleIDDefinition = AppleIDDefinition()) throws(SimulatorError)
        -> AppleIDDescription
    {
        try engine.mutate { state, _ throws(SimulatorError) in try state.createAppleID(definition) }.0
    }

    /// Every Apple ID.
    public func appleIDs() -> [AppleIDDescription] {
        (try? engine.read { state in state.accounts.values.sorted { $0.appleID < $1.appleID } }) ?? []
    }

    // MARK: Purchases

    /// Buys a product (or files an Ask to Buy request).
    public func purchase(_ request: PurchaseRequest) async throws(SimulatorError) -> ActionResult {
        let (outcome, uuids) = try engine.mutate { state, context throws(SimulatorError) in
            try state.purchase(request, context)
        }
        return try await answer(
            key: AccountAppKey(appleID: request.appleID, bundleID: request.bundleID),
            transactionID: outcome.transactionID, askToBuyRequestID: outcome.askToBuyRequestID, uuids: uuids)
    }

    /// Approves an Ask to Buy request; the purchase happens now.
    public func approveAskToBuy(_ requestID: String) async throws(SimulatorError) -> ActionResult {
        let pending = try engine.read { state throws(SimulatorError) in
            guard let record = state.askToBuy[requestID] else {
                throw SimulatorError(.notFound, "Ask to Buy request \(requestID) does not exist")
            }
            return record.purchase
        }
        let (outcome, uuids) = try engine.mutate { state, context throws(SimulatorError) in
            try state.approveAskToBuy(requestID, context)
        }
        return try await answer(
            key: AccountAppKey(appleID: pending.appleID, bundleID: pending.bundleID),
            transactionID: outcome.transactionID, uuids: uuids)
    }

    /// Declines an Ask to Buy request; nothing is bought.
    public func declineAskToBuy(_ requestID: String) async throws(SimulatorError) -> ActionResult {
        let (pending, uuids) = try engine.mutate { state, _ throws(SimulatorError) in
            try state.declineAskToBuy(requestID)
        }
        return try await answer(
            key: AccountAppKey(appleID: pending.purchase.appleID, bundleID: pending.purchase.bundleID),
            transactionID: nil, askToBuyRequestID: requestID, uuids: uuids)
    }

    /// Finishes a consumable: it leaves the app receipt.
    public func finishTransaction(_ transactionID: String) async throws(SimulatorError) -> ActionResult {
        try await transactionAction(transactionID) { state, _ throws(SimulatorError) in
            try state.finish(transactionID).transactionID
        }
    }

    // MARK: Subscriptions

    /// Renews a subscription now (or fails to, when its billing is failing).
    public func renew(_ id: String) async throws(SimulatorError) -> ActionResult {
        try await transactionAction(id) { state, context throws(SimulatorError) in try state.renewNow(id, context) }
    }

    /// Turns auto-renew on or off.
    public func setAutoRenew(_ id: String, enabled: Bool) async throws(SimulatorError) -> ActionResult {
        try await transactionAction(id) { state, context throws(SimulatorError) in
            try state.setAutoRenew(id, enabled: enabled, context)
        }
    }

    /// Announces a price increase of the subscription's auto-renew product (`PRICE_INCREASE`).
    public func increasePrice(_ id: String, _ request: PriceIncreaseRequest) async throws(SimulatorError)
        -> ActionResult
    {
        try await transactionAction(id) { state, context throws(SimulatorError) in
            try state.increasePrice(
                id, to: request.price, requiresConsent: request.requiresConsent ?? true, context)
        }
    }

    /// The customer consents to the announced price increase (`PRICE_INCREASE` `ACCEPTED`).
    public func consentToPriceIncrease(_ id: String) async throws(SimulatorError) -> ActionResult {
        try await transactionAction(id) { state, context throws(SimulatorError) in
            try state.consentToPriceIncrease(id, context)
        }
    }

    /// Makes renewals fail until `recoverBilling`; `immediately` ends the current period now.
    public func failBilling(_ id: String, immediately: Bool = false) async throws(SimulatorError) -> ActionResult {
        try await transactionAction(id) { state, context throws(SimulatorError) in
            try state.failBilling(id, immediately: immediately, context)
        }
    }

    /// Billing works again; a subscription in grace or billing retry renews now.
    public func recoverBilling(_ id: String) async throws(SimulatorError) -> ActionResult {
        try await transactionAction(id) { state, context throws(SimulatorError) in
            try state.recoverBilling(id, context)
        }
    }

    /// Changes a subscription's product (upgrade now; downgrade at renewal; crossgrade by duration).
    public func changeProduct(_ id: String, to productID: String) async throws(SimulatorError) -> ActionResult {
        try await transactionAction(id) { state, context throws(SimulatorError) in
            try state.changeProduct(id, to: productID, context)
        }
    }

    /// Refunds a transaction.
    public func refund(_ transactionID: String, _ request: RefundRequest = RefundRequest()) async throws(SimulatorError)
        -> ActionResult
    {
        try await transactionAction(transactionID) { state, context throws(SimulatorError) in
            try state.refund(
                transactionID, reason: request.reason ?? 0, date: request.date,
                percentage: request.percentage ?? 100_000, context)
        }
    }

    /// Declines the customer's refund request (`REFUND_DECLINED`).
    public func declineRefund(_ transactionID: String) async throws(SimulatorError) -> ActionResult {
        try await transactionAction(transactionID) { state, context throws(SimulatorError) in
            try state.declineRefund(transactionID, context)
        }
    }

    /// Reverses a refund.
    public func reverseRefund(_ transactionID: String) async throws(SimulatorError) -> ActionResult {
        try await transactionAction(transactionID) { state, context throws(SimulatorError) in
            try state.reverseRefund(transactionID, context)
        }
    }

    /// Completes every mass extension not yet complete, as Apple would once done; the answer counts them.
    public func completeMassExtensions() async throws(SimulatorError) -> MassExtensionsCompleted {
        let signer = engine.signer
        let (completed, _) = try engine.mutate { state, context throws(SimulatorError) -> Int in
            let pending = state.extensions.massRequests.filter { !$0.value.complete }.keys.sorted()
            for key in pending {
                try state.completeMassExtension(key: key, signer: signer, context)
            }
            return pending.count
        }
        await engine.deliverDue()
        return MassExtensionsCompleted(completed: completed)
    }

    /// Shares a purchase with a family member; the answer is the member's device state.
    public func shareWithFamily(_ transactionID: String, with appleID: String) async throws(SimulatorError)
        -> ActionResult
    {
        try await transactionAction(transactionID) { state, context throws(SimulatorError) in
            try state.shareWithFamily(transactionID, memberAppleID: appleID, context)
        }
    }

    /// Stops sharing with a family member; the answer is the member's device state.
    public func revokeFamilySharing(_ transactionID: String, from appleID: String) async throws(SimulatorError)
        -> ActionResult
    {
        try await transactionAction(transactionID) { state, context throws(SimulatorError) in
            try state.revokeFamilySharing(transactionID, memberAppleID: appleID, context)
        }
    }

    /// The Apple ID's current receipt for an app, without changing anything.
    public func receipt(appleID: String, bundleID: String) async throws(SimulatorError) -> ActionResult {
        let key = AccountAppKey(appleID: appleID, bundleID: bundleID)
        _ = try engine.read { state throws(SimulatorError) in
            _ = try state.account(appleID)
            return try state.app(bundleID).bundleID
        }
        return try await answer(key: key, transactionID: nil, uuids: [])
    }

    /// The StoreKit 2 JWS of any transaction, signed now.
    public func signedTransaction(_ transactionID: String) throws(SimulatorError) -> String {
        let now = engine.clock.now()
        let signer = engine.signer
        return try engine.read { state throws(SimulatorError) in
            try state.signedTransaction(transactionID, signer: signer, now: now)
        }
    }

    // MARK: Clock

    /// The clock's mode and time.
    public func clock() -> ClockDescription {
        ClockDescription(
            mode: engine.clock.mode.rawValue, now: engine.clock.now().millisecondsSince1970,
            acceleration: engine.clock.acceleration, notificationUUIDs: [])
    }

    /// Moves the clock; renewals, expiries and notification retries that it passes happen.
    public func advanceClock(_ request: ClockAdvanceRequest) async -> ClockDescription {
        engine.clock.advance(milliseconds: request.totalMilliseconds)
        let uuids = await engine.tick()
        var description = clock()
        description.notificationUUIDs = uuids
        return description
    }

    // MARK: Faults

    /// Sets (or with nil removes) the fault of an endpoint.
    public func setFault(_ rule: FaultRule?, for endpoint: FaultEndpoint) {
        engine.faults.set(rule, for: endpoint)
    }

    /// Removes every fault.
    public func clearFaults() { engine.faults.clear() }

    /// The configured faults by endpoint.
    public func faults() -> [String: FaultRule] {
        Dictionary(uniqueKeysWithValues: engine.faults.rules.map { ($0.key.rawValue, $0.value) })
    }

    /// What `verifyReceipt` answers now for `receiptData` at `environment`'s endpoint (the JSON text), without counting
    /// a request: a test reads what its app's server was told, `request_date_ms` included.
    public func verifyReceiptAnswer(_ receiptData: String, environment: StoreEnvironment = .production) -> String {
        let body = (try? JSONSerialization.data(withJSONObject: ["receipt-data": receiptData])) ?? Data()
        return VerifyReceiptResponder(engine: engine).answer(body: body, endpoint: environment)
    }

    /// How many `verifyReceipt` requests each environment's endpoint received: `["production": n, "sandbox": m]`.
    public func verifyReceiptRequests() -> [String: Int] { engine.verifyReceiptRequests.all }

    // MARK: Notifications

    /// Changes delivery switches; turning out-of-order off releases held notifications.
    public func updateNotificationSettings(_ update: NotificationSettingsUpdate) async -> NotificationSettings {
        let settings = engine.state.withLock { state in
            if let url = update.defaultURL { state.notifications.settings.defaultURL = url.isEmpty ? nil : url }
            if let duplicate = update.duplicate { state.notifications.settings.duplicate = duplicate }
            if let drop = update.drop { state.notifications.settings.drop = drop }
            if let outOfOrder = update.outOfOrder {
                state.notifications.settings.outOfOrder = outOfOrder
                if !outOfOrder { state.notifications.releaseHeld() }
            }
            return state.notifications.settings
        }
        await engine.deliverDue()
        return settings
    }

    /// Sends notifications held back by out-of-order delivery.
    public func flushNotifications() async {
        engine.state.withLock { $0.notifications.releaseHeld() }
        await engine.deliverDue()
    }

    /// Every notification created so far, oldest first, with its attempts.
    public func notifications() -> [NotificationSummary] {
        engine.state.withLock { $0.notifications.records.map(\.summary) }
    }

    /// Sends a `TEST` notification for an app in `environment` (what Request a Test Notification does, for the
    /// environment whose API was called).
    public func sendTestNotification(
        bundleID: String, environment: StoreEnvironment = .sandbox
    ) async throws(SimulatorError) -> NotificationSummary {
        let uuids = try engine.mutate { state, _ throws(SimulatorError) in
            let app = try state.app(bundleID)
            state.events.append(
                SimulatorEvent(
                    type: "TEST", key: AccountAppKey(appleID: "", bundleID: app.bundleID), transactionID: nil,
                    environment: environment))
        }.1
        await engine.deliverDue()
        return try engine.read { state throws(SimulatorError) in
            guard let uuid = uuids.first, let index = state.notifications.indexByUUID[uuid] else {
                throw SimulatorError(.internalError, "test notification was not created")
            }
            return state.notifications.records[index].summary
        }
    }

    // MARK: Answers

    private func transactionAction(
        _ id: String,
        _ body: (inout SimulatorState, SimulatorState.Context) throws(SimulatorError) -> String
    ) async throws(SimulatorError) -> ActionResult {
        let (transactionID, uuids) = try engine.mutate(body)
        let key = try engine.read { state throws(SimulatorError) in
            let record = try state.transaction(transactionID)
            return AccountAppKey(appleID: record.appleID, bundleID: record.bundleID)
        }
        return try await answer(key: key, transactionID: transactionID, uuids: uuids)
    }

    private func answer(
        key: AccountAppKey,
        transactionID: String?,
        askToBuyRequestID: String? = nil,
        uuids: [String]
    ) async throws(SimulatorError) -> ActionResult {
        await engine.deliverDue()
        let now = engine.clock.now()
        let signer = engine.signer
        return try engine.read { state throws(SimulatorError) in
            let account = try state.account(key.appleID)
            let receipt = try state.currentReceipt(key, signer: signer, now: now)
            var result = ActionResult(
                appleID: key.appleID, bundleID: key.bundleID, environment: account.environment,
                receiptData: receipt.base64, askToBuyRequestID: askToBuyRequestID, notificationUUIDs: uuids,
                now: now.millisecondsSince1970)
            guard let transactionID else { return result }
            let record = try state.transaction(transactionID)
            result.productID = record.productID
            result.transactionID = record.transactionID
            result.originalTransactionID = record.originalTransactionID
            result.webOrderLineItemID = record.webOrderLineItemID
            result.orderID = record.orderID
            result.applicationUsername = record.usernameLost ? "" : record.applicationUsername
            result.signedTransaction = try state.signedTransaction(transactionID, signer: signer, now: now)
            if let chain = state.chains[record.originalTransactionID] {
                result.signedRenewalInfo = try state.signedRenewalInfo(
                    chain.originalTransactionID, signer: signer, now: now)
                result.subscriptionStatus = chain.status.rawValue
            }
            if record.legacyReceipt {
                result.legacyReceiptData = try state.legacyReceipt(transactionID, signer: signer, now: now)
            }
            return result
        }
    }
}
