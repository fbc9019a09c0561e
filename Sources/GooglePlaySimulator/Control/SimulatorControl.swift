import Foundation
import GooglePlay
import SubLedgerCore

/// Every control operation as a Swift call (the `/control` routes serve the same ones). Actions that publish
/// notifications push them before they return.
public struct SimulatorControl: Sendable {
    let engine: SimulatorEngine

    // MARK: Catalog

    /// Creates (or replaces) a package and its products.
    @discardableResult
    public func createPackage(_ definition: PackageDefinition) throws(SimulatorError) -> PackageDefinition {
        try CatalogValidation.check(definition)
        _ = try engine.mutate { state, _ throws(SimulatorError) in state.packages[definition.packageName] = definition }
        return definition
    }

    /// Every package.
    public func packages() -> [PackageDefinition] {
        (try? engine.read { state throws(SimulatorError) in
            state.packages.values.sorted { $0.packageName < $1.packageName }
        })
            ?? []
    }

    // MARK: Purchases

    /// A user buys a subscription or a one-time product.
    public func purchase(_ request: PurchaseRequest) async throws(SimulatorError) -> PurchaseDescription {
        let (token, ids) = try engine.mutate { state, now throws(SimulatorError) in
            try state.purchase(request, now: now)
        }
        await engine.deliverDue()
        return try describe(token, messageIds: ids)
    }

    /// The simulator's view of a purchase token.
    public func describe(_ token: String, messageIds: [String] = []) throws(SimulatorError) -> PurchaseDescription {
        try engine.read { state throws(SimulatorError) in
            if let record = state.subscriptions[token] { return record.description(messageIds: messageIds) }
            if let record = state.oneTimePurchases[token] { return record.description(messageIds: messageIds) }
            throw SimulatorError(.notFound, "no purchase \(token)")
        }
    }

    /// The user pays a pending purchase.
    public func completePending(_ token: String) async throws(SimulatorError) -> PurchaseDescription {
        try await act(token) { state, now throws(SimulatorError) in try state.completePending(token, now: now) }
    }

    /// The user never pays a pending purchase.
    public func cancelPending(_ token: String) async throws(SimulatorError) -> PurchaseDescription {
        try await act(token) { state, now throws(SimulatorError) in try state.cancelPending(token, now: now) }
    }

    /// The user cancels in the Play Store (renewal off; entitled to the period's end).
    public func cancel(_ token: String) async throws(SimulatorError) -> PurchaseDescription {
        try await act(token) { state, now throws(SimulatorError) in try state.cancel(token, by: .user, now: now) }
    }

    /// The user restores a canceled subscription.
    public func restart(_ token: String) async throws(SimulatorError) -> PurchaseDescription {
        try await act(token) { state, now throws(SimulatorError) in try state.restart(token, now: now) }
    }

    /// Renewals fail from now on.
    public func failBilling(_ token: String) async throws(SimulatorError) -> PurchaseDescription {
        try await act(token) { state, _ throws(SimulatorError) in try state.failBilling(token) }
    }

    /// Payment works again (recovers from grace period or account hold).
    public func recoverBilling(_ token: String) async throws(SimulatorError) -> PurchaseDescription {
        try await act(token) { state, now throws(SimulatorError) in try state.recoverBilling(token, now: now) }
    }

    /// The user schedules a pause from the period's end.
    public func pause(_ token: String, _ request: PauseRequest) async throws(SimulatorError) -> PurchaseDescription {
        try await act(token) { state, now throws(SimulatorError) in
            try state.schedulePause(token, days: request.days, now: now)
        }
    }

    /// The user resumes (or withdraws a scheduled pause).
    public func resume(_ token: String) async throws(SimulatorError) -> PurchaseDescription {
        try await act(token) { state, now throws(SimulatorError) in try state.resume(token, now: now) }
    }

    /// An upgrade or downgrade: answers the new purchase token's description.
    public func changePlan(_ token: String, _ request: ChangePlanRequest) async throws(SimulatorError)
        -> PurchaseDescription
    {
        let (newToken, ids) = try engine.mutate { state, now throws(SimulatorError) in
            try state.replace(token, with: request, now: now)
        }
        await engine.deliverDue()
        return try describe(newToken, messageIds: ids)
    }

    /// A refund: a subscription's latest order (revoking it unless `revoke` is false) or a one-time purchase.
    public func refund(_ token: String, _ request: RefundRequest) async throws(SimulatorError) -> PurchaseDescription {
        try request.check()
        return try await act(token) { state, now throws(SimulatorError) in
            if state.subscriptions[token] != nil {
                try state.refundSubscription(token, request, now: now)
            } else {
                try state.refundOneTime(token, request, now: now)
            }
        }
    }

    private func act(
        _ token: String, _ body: (inout SimulatorState, Instant) throws(SimulatorError) -> Void
    ) async throws(SimulatorError) -> PurchaseDescription {
        let (_, ids) = try engine.mutate(body)
        await engine.deliverDue()
        return try describe(token, messageIds: ids)
    }

    // MARK: Voided purchases

    /// Every voided purchase, in the order voided.
    public func voidedPurchases() -> [VoidedPurchase] {
        (try? engine.read { state throws(SimulatorError) in state.voided.map(\.wire) }) ?? []
    }

    // MARK: Clock

    public func clock() -> ClockDescription {
        let now = engine.now
        return ClockDescription(now: now.millisecondsSince1970, time: GoogleTime.format(now))
    }

    /// Moves the clock; renewals, grace periods, holds, expiries and unacknowledged refunds it passes happen,
    /// and due pushes (retries included) are sent.
    public func advanceClock(_ request: ClockAdvanceRequest) async throws(SimulatorError) -> ClockDescription {
        _ = await engine.advance(milliseconds: try request.total())
        return clock()
    }

    // MARK: Notifications

    /// Every published notification with its push attempts.
    public func notifications() -> [NotificationRecord] {
        (try? engine.read { state throws(SimulatorError) in state.notifications.records }) ?? []
    }

    /// Where and how notifications are pushed.
    public func notificationSettings() -> NotificationSettingsDescription {
        let settings = engine.state.withLock { $0.notifications.settings }
        return NotificationSettingsDescription(settings)
    }

    /// Changes where and how notifications are pushed.
    public func updateNotificationSettings(_ update: NotificationSettingsUpdate) async throws(SimulatorError)
        -> NotificationSettingsDescription
    {
        if let url = update.pushUrl, !url.isEmpty {
            guard url.utf8.count <= 2048, let parsed = URL(string: url),
                ["http", "https"].contains(parsed.scheme ?? ""),
                parsed.host != nil
            else { throw SimulatorError(.badRequest, "push_url must be an http or https URL") }
        }
        for (value, field) in [(update.audience, "audience"), (update.serviceAccountEmail, "service_account_email")] {
            if let value, !WireText.isAcceptable(value, maximumLength: 2048) {
                throw SimulatorError(.badRequest, "\(field) must be 1 to 2048 characters")
            }
        }
        let settings = try engine.read { state throws(SimulatorError) in
            if let url = update.pushUrl { state.notifications.settings.pushURL = url.isEmpty ? nil : url }
            if let audience = update.audience { state.notifications.settings.audience = audience }
            if let email = update.serviceAccountEmail { state.notifications.settings.serviceAccountEmail = email }
            if let drop = update.drop { state.notifications.settings.drop = drop }
            if let unauthenticated = update.unauthenticated {
                state.notifications.settings.unauthenticated = unauthenticated
            }
            return state.notifications.settings
        }
        await engine.deliverDue()
        return NotificationSettingsDescription(settings)
    }

    /// Publishes a `testNotification` for a package (as the Play Console's "Send test notification").
    public func sendTestNotification(packageName: String) async throws(SimulatorError) -> [String] {
        let (_, ids) = try engine.mutate { state, now throws(SimulatorError) in
            _ = try state.package(packageName)
            state.events.append(
                DeveloperNotification(
                    packageName: packageName, eventTimeMillis: now.millisecondsSince1970,
                    testNotification: TestNotification()))
        }
        await engine.deliverDue()
        return ids
    }

    // MARK: Faults

    public func faults() -> [String: FaultRule] { engine.faults.rules }

    public func setFault(_ rule: FaultRule?, for endpoint: FaultEndpoint) throws(SimulatorError) {
        try rule?.check()
        engine.faults.set(rule, for: endpoint)
    }

    public func clearFaults() { engine.faults.clear() }
}
