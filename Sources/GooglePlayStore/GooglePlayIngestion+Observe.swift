import Foundation
import GooglePlay
import GooglePlayClients
import SubLedgerCore
import SubLedgerStore
import SubLedgerUseCases

extension GooglePlayIngestion {
    /// The subscription `token` bought, as Google shows it now; `nil` when there is nothing to apply: a product the
    /// catalog does not sell on Google Play as a subscription, or a purchase still pending or cancelled before it
    /// completed. A token Google does not know is `invalid_purchase`; Google failing, `google_play_unavailable`.
    ///
    /// The reading carries the chain's current state (`currentState(of:…)`): a notification about a token that a newer
    /// one replaced applies the newest token's state.
    func observeSubscription(token: String, app: StoredApp) async throws -> GooglePlayReading? {
        let (client, packageName) = try await gateway.client(for: app)
        let observedAt = now()
        let purchase: SubscriptionPurchaseV2
        do {
            purchase = try await client.subscriptionV2(packageName: packageName, token: token)
        } catch {
            throw Self.refusal(error)
        }
        guard let productID = purchase.primaryLineItem?.productId, let product = app.definition.product(productID),
            product.store == .googlePlay, product.type == .autoRenewable
        else { return nil }
        switch purchase.subscriptionState {
        case .pending?, .pendingPurchaseCanceled?: return nil
        default: break
        }
        let chain = try await chain(of: token, purchase: purchase, client: client, packageName: packageName, app: app)
        do {
            let observation = try purchase.observation(
                purchaseToken: token, packageName: packageName, chainID: chain.chainID,
                observedAt: observedAt)
            let reading = try await currentState(
                of: observation, replaced: purchase.isReplaced, client: client, packageName: packageName, app: app,
                observedAt: observedAt)
            return try await withEarlierOrders(
                reading, token: token, purchase: purchase, chain: chain, client: client, packageName: packageName,
                app: app)
        } catch let error as GooglePlayMappingError {
            throw Self.refusal(error)
        } catch let error as GooglePlayAPIError {
            throw Self.refusal(error)
        }
    }

    /// The one-time product `token` bought, as Google shows it now; `nil` as for `observeSubscription` (a
    /// cancelled or refunded purchase shows nothing to credit; its refund is read from the voided purchases).
    public func observeProduct(token: String, app: StoredApp) async throws -> GooglePlayObservation? {
        let (client, packageName) = try await gateway.client(for: app)
        let observedAt = now()
        let purchase: ProductPurchaseV2
        do {
            purchase = try await client.productV2(packageName: packageName, token: token)
        } catch {
            throw Self.refusal(error)
        }
        guard let productID = purchase.productLineItem?.first?.productId,
            let product = app.definition.product(productID), product.store == .googlePlay,
            product.type != .autoRenewable
        else { return nil }
        let observation: GooglePlayObservation
        do {
            observation = try purchase.observation(
                purchaseToken: token, packageName: packageName, observedAt: observedAt)
        } catch  where error.code == .notPurchased {
            return nil
        } catch {
            throw Self.refusal(error)
        }
        try await recordProductToken(token, of: observation, app: app)
        return observation
    }

    /// Google's answer that cannot be applied, as the ingestion's refusal.
    static func refusal(_ error: GooglePlayMappingError) -> IngestionError {
        switch error.code {
        case .notPurchased:
            IngestionError(.purchaseNotCompleted, "Google has the purchase as not completed (\(error.field))")
        default:
            IngestionError(.invalidPurchase, "Google's answer cannot be applied (\(error))")
        }
    }

    // MARK: Voided purchases

    /// The orders of `token` Google lists as voided around `instant` (its notification's event time), each as the
    /// revoked version of the transaction SubLedger holds for it. `orderID`, when the notification names one,
    /// narrows the list to that order. Orders SubLedger never credited revoke nothing and are left out.
    public func revocations(ofToken token: String, orderID: String?, around instant: Instant, app: StoredApp)
        async throws -> (listed: Int, revoked: [Transaction])
    {
        let (client, packageName) = try await gateway.client(for: app)
        // Google keeps 30 days. No end time: Google lists up to its own now, and refuses an end time past it (a
        // clock here ahead of Google's would make every list fail).
        let current = now()
        let oldest = current.adding(milliseconds: -29 * 86_400_000)
        let from = max(oldest, min(instant, current).adding(milliseconds: -3_600_000))
        let listed: [VoidedPurchase]
        do {
            listed = try await client.allVoidedPurchases(
                packageName: packageName, query: .init(startTime: from, includeQuantityBasedPartialRefund: true))
        } catch {
            // Whatever Google answered, the void is real (the notification said so): tried again later.
            throw IngestionError(
                .googlePlayUnavailable, "Google's voided purchases could not be listed (\(error.code))",
                retryAfter: .seconds(Self.retryAfterSeconds))
        }
        let matching = listed.filter { $0.purchaseToken == token && (orderID == nil || $0.orderId == orderID) }
        var revoked: [Transaction] = []
        for voided in matching {
            if let transaction = try await revocation(of: voided, app: app) { revoked.append(transaction) }
        }
        return (matching.count, revoked)
    }

    /// The revoked version of the order `voided` names, from the transaction SubLedger holds for it (found through
    /// the token's chain, or for a one-time product the order's own chain); for a subscription token SubLedger
    /// knows whose voided order it has not seen yet (a renewal refunded before it was read), the order as Google
    /// shows it now; `nil` when SubLedger holds nothing the void could take back.
    ///
    /// The revocation date is Google's voided time; the reason Apple's (1, a problem with the purchase, for
    /// Google's `notReceived` and `defective`; 0 otherwise); a quantity-based partial refund states the refunded
    /// share of the price (`revocationPercentage`) for revenue.
    func revocation(of voided: VoidedPurchase, app: StoredApp) async throws -> Transaction? {
        guard let token = voided.purchaseToken, let rawOrder = voided.orderId, let order = GoogleOrderID(rawOrder),
            let voidedAt = voided.voidedTime
        else { return nil }
        var candidates: [ChainKey] = []
        let tokenChain = try await tokens.chain(ofToken: token, appID: app.appID)
        if let tokenChain { candidates.append(tokenChain) }
        for environment in [StoreEnvironment.production, .sandbox] {
            candidates.append(ChainKey(environment: environment, chainID: order.base))
        }
        for key in candidates {
            guard let chain = try await store.chain(key, app: app),
                let known = chain.transactions.first(where: {
                    $0.transaction.transactionID == order.description && $0.transaction.store == .googlePlay
                })
            else { continue }
            return Self.revoked(known.transaction, by: voided, at: voidedAt)
        }
        if tokenChain != nil, let observed = try await observeSubscription(token: token, app: app)?.transactions.first,
            observed.transactionID == order.description
        {
            return Self.revoked(observed, by: voided, at: voidedAt)
        }
        return nil
    }

    /// `transaction` as `voided` revoked it.
    static func revoked(_ transaction: Transaction, by voided: VoidedPurchase, at voidedAt: Instant) -> Transaction {
        var revoked = transaction
        revoked.revocationDate = voidedAt
        revoked.revocationReason = voided.reason == .notReceived || voided.reason == .defective ? 1 : 0
        revoked.revocationPercentage = nil
        if let quantity = voided.voidedQuantity, quantity > 0, Int(quantity) < revoked.quantity {
            revoked.revocationPercentage = Int(quantity) * 100_000 / revoked.quantity
        }
        revoked.signedDate = nil
        return revoked
    }

    /// Applies voided purchases read from the list (the poller's work): each one SubLedger credited is revoked on its
    /// chain, with no submitter. Returns how many were applied.
    public func applyVoided(_ voided: [VoidedPurchase], app: StoredApp) async throws -> Int {
        var applied = 0
        for entry in voided {
            guard let transaction = try await revocation(of: entry, app: app) else { continue }
            let input = LedgerInput(
                kind: .poll, bundleID: app.bundleID, environment: transaction.environment, submitter: nil,
                transactions: [transaction], observedAt: now())
            LedgerMetrics.record(try await store.apply(input, app: app, now: now()))
            applied += 1
        }
        return applied
    }
}
