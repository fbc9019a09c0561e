import SubLedgerCore

/// What the ledger reads from one Developer API answer about a purchase token: the order it bought (as a
/// `Transaction`), and for a subscription its renewal state.
public struct GooglePlayObservation: Hashable, Sendable {
    public var transaction: Transaction
    public var renewalInfo: RenewalInfo?
    /// The token this purchase replaced (an upgrade, downgrade or resubscription), when Google names one.
    public var linkedPurchaseToken: String?
    /// Whether Google has the purchase acknowledged (or consumed) already.
    public var isAcknowledged: Bool

    public var environment: StoreEnvironment { transaction.environment }
}

extension SubscriptionPurchaseV2 {
    /// The line item the ledger follows: the first (a subscription without add-ons has exactly one).
    public var primaryLineItem: SubscriptionPurchaseLineItem? { lineItems?.first }

    /// Whether Google ended this token because another replaced it (an upgrade, downgrade or re-signup): its state
    /// is then this token's, no longer the subscription's.
    public var isReplaced: Bool { canceledStateContext?.replacementCancellation != nil }

    /// The first order id of this purchase (`latestOrderId` without its renewal suffix): the chain's
    /// original transaction id when the purchase starts a lineage.
    public var baseOrderID: String? {
        (primaryLineItem?.latestSuccessfulOrderId ?? latestOrderId).flatMap(GoogleOrderID.init)?.base
    }

    /// This answer in the ledger's terms.
    ///
    /// - `chainID` is the chain's original transaction id: the base order id of the lineage's first purchase
    ///   token (the caller follows `linkedPurchaseToken`), `baseOrderID` when this token starts the lineage.
    /// - The transaction is the latest successful order; its purchase date is the start of the period it paid
    ///   for: `startTime` for the purchase's own order; for the `N`th renewal (`..N`, period `N + 2` since
    ///   `startTime`) Google states no start, so it is estimated as the expiry minus the average period length
    ///   since `startTime`, exact for periods of equal length and never before `startTime` or after the expiry.
    /// - A license tester's purchase (`testPurchase`) is `sandbox`.
    /// - The transaction names the token this one replaced (`replacedPurchaseToken`), which orders the lineage.
    public func observation(
        purchaseToken: String, packageName: String, chainID: String, observedAt: Instant
    ) throws(GooglePlayMappingError) -> GooglePlayObservation {
        switch subscriptionState {
        case .pending?, .pendingPurchaseCanceled?:
            throw GooglePlayMappingError(.notPurchased, subscriptionState?.rawValue ?? "")
        default: break
        }
        guard let item = primaryLineItem else { throw GooglePlayMappingError(.missingField, "lineItems") }
        guard let productID = item.productId, IdentifierRule.productID.accepts(productID) else {
            throw GooglePlayMappingError(item.productId == nil ? .missingField : .invalidField, "lineItems.productId")
        }
        guard let rawOrder = item.latestSuccessfulOrderId ?? latestOrderId else {
            throw GooglePlayMappingError(.notPurchased, "latestOrderId")
        }
        guard let order = GoogleOrderID(rawOrder) else { throw GooglePlayMappingError(.invalidField, "latestOrderId") }
        guard let start = GoogleTime.parse(startTime) else {
            throw GooglePlayMappingError(startTime == nil ? .missingField : .invalidField, "startTime")
        }
        guard let expiry = GoogleTime.parse(item.expiryTime) else {
            throw GooglePlayMappingError(item.expiryTime == nil ? .missingField : .invalidField, "lineItems.expiryTime")
        }
        let environment: StoreEnvironment = isTestPurchase ? .sandbox : .production
        let price = item.autoRenewingPlan?.recurringPrice
        let isTrial = item.offerPhase?.freeTrial != nil && order.renewal == nil
        let transaction = Transaction(
            transactionID: order.description, chainID: chainID, productID: productID,
            bundleID: packageName, purchaseDate: Self.periodStart(of: order, start: start, expiry: expiry),
            originalPurchaseDate: start, expiresDate: expiry, isTrialPeriod: isTrial,
            offerIdentifier: item.offerDetails?.offerId,
            accountHint: externalAccountIdentifiers?.obfuscatedExternalAccountId, environment: environment,
            source: .googlePlayAPI, price: isTrial ? 0 : price?.milliunits, currency: price?.currencyCode,
            storefront: regionCode, purchaseToken: purchaseToken,
            replacedPurchaseToken: linkedPurchaseToken.flatMap { $0.isEmpty ? nil : String($0.prefix(1024)) })
        let autoRenews = item.autoRenewingPlan?.autoRenewEnabled ?? false
        let state = subscriptionState
        let renewal = RenewalInfo(
            chainID: chainID, productID: productID, autoRenewProductID: productID,
            willAutoRenew: autoRenews && state != .expired && state != .canceled,
            expirationIntent: Self.expirationIntent(state: state, canceled: canceledStateContext),
            isInBillingRetryPeriod: state == .inGracePeriod || state == .onHold,
            gracePeriodExpiresDate: state == .inGracePeriod ? expiry : nil,
            renewalPrice: price?.milliunits, currency: price?.currencyCode, environment: environment,
            observedAt: observedAt)
        return GooglePlayObservation(
            transaction: transaction, renewalInfo: renewal, linkedPurchaseToken: linkedPurchaseToken,
            isAcknowledged: acknowledgementState == .acknowledged)
    }

    /// The estimated start of the period the order paid for (see `observation`); never traps.
    static func periodStart(of order: GoogleOrderID, start: Instant, expiry: Instant) -> Instant {
        guard let renewal = order.renewal, expiry > start else { return start }
        let span = expiry.millisecondsSince1970.subtractingReportingOverflow(start.millisecondsSince1970)
        guard !span.overflow else { return start }
        let periods = Int64(renewal) + 2
        return Instant(millisecondsSince1970: expiry.millisecondsSince1970 - span.partialValue / periods)
    }

    /// Apple's expiration intent for Google's cancellation: 1 the customer cancelled, 2 a billing problem.
    static func expirationIntent(state: SubscriptionState?, canceled: CanceledStateContext?) -> Int? {
        switch canceled?.initiator {
        case .user?: return 1
        case .system?: return 2
        case .developer?, .replacement?: return 5
        case nil: return state == .onHold || state == .expired ? 2 : nil
        }
    }
}

extension ProductPurchaseV2 {
    /// This one-time purchase in the ledger's terms: the order is its own chain (original transaction id =
    /// order id), the quantity is the line item's. Only a completed purchase credits anything.
    public func observation(purchaseToken: String, packageName: String, observedAt: Instant)
        throws(GooglePlayMappingError) -> GooglePlayObservation
    {
        guard let state = purchaseStateContext?.purchaseState else {
            throw GooglePlayMappingError(.missingField, "purchaseStateContext.purchaseState")
        }
        guard state == .purchased else { throw GooglePlayMappingError(.notPurchased, state.rawValue) }
        guard let item = productLineItem?.first else { throw GooglePlayMappingError(.missingField, "productLineItem") }
        guard let productID = item.productId, IdentifierRule.productID.accepts(productID) else {
            throw GooglePlayMappingError(item.productId == nil ? .missingField : .invalidField, "productId")
        }
        guard let rawOrder = orderId else { throw GooglePlayMappingError(.missingField, "orderId") }
        guard let order = GoogleOrderID(rawOrder), order.renewal == nil else {
            throw GooglePlayMappingError(.invalidField, "orderId")
        }
        guard let completed = GoogleTime.parse(purchaseCompletionTime) else {
            throw GooglePlayMappingError(
                purchaseCompletionTime == nil ? .missingField : .invalidField, "purchaseCompletionTime")
        }
        let quantity = Int(item.productOfferDetails?.quantity ?? 1)
        guard (1...10_000).contains(quantity) else { throw GooglePlayMappingError(.invalidField, "quantity") }
        let transaction = Transaction(
            transactionID: order.base, chainID: order.base, productID: productID,
            bundleID: packageName, quantity: quantity, purchaseDate: completed, originalPurchaseDate: completed,
            offerIdentifier: item.productOfferDetails?.offerId, accountHint: obfuscatedExternalAccountId,
            environment: testPurchaseContext == nil ? .production : .sandbox, source: .googlePlayAPI,
            storefront: regionCode, purchaseToken: purchaseToken)
        let consumed = item.productOfferDetails?.consumptionState == .consumed
        return GooglePlayObservation(
            transaction: transaction, renewalInfo: nil, linkedPurchaseToken: nil,
            isAcknowledged: acknowledgementState == .acknowledged || consumed)
    }
}
