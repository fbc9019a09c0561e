import GooglePlay
import SubLedgerCore

extension SimulatorState {
    // MARK: Purchases

    /// A purchase of a subscription's base plan (and offer), or of a one-time product.
    mutating func purchase(_ request: PurchaseRequest, now: Instant) throws(SimulatorError) -> String {
        try PurchaseRequestValidation.check(request)
        let package = try package(request.packageName)
        if let subscription = package.subscriptions.first(where: { $0.productId == request.productId }) {
            let plan = try basePlan(of: subscription, request.basePlanId)
            let offer = try offer(of: plan, request.offerId)
            let token = makePurchaseToken()
            let pending = request.pending ?? false
            subscriptions[token] = SubscriptionRecord(
                token: token, packageName: package.packageName, productId: subscription.productId,
                basePlanId: plan.basePlanId, offerId: offer?.offerId, offerTags: offer?.offerTags,
                billingPeriod: plan.billingPeriod, priceMicros: plan.priceMicros, currencyCode: plan.currencyCode,
                gracePeriodDays: plan.gracePeriodDays, accountHoldDays: plan.accountHoldDays,
                accountId: request.obfuscatedExternalAccountId, profileId: request.obfuscatedExternalProfileId,
                isTest: request.test ?? false, regionCode: request.regionCode ?? "US", startTime: now,
                periodEnd: now, status: pending ? .pending : .active, autoRenew: true, orderBase: makeOrderID(),
                freeTrialDays: offer?.freeTrialDays)
            if var record = subscriptions[token] {
                if !pending { record.periodEnd = record.firstPeriodEnd(after: now) }
                record.recordOrder(periodStart: now, at: now, state: pending ? .pending : .processed)
                subscriptions[token] = record
            }
            if !pending { emit(package.packageName, at: now, subscription: .purchased, token) }
            return token
        }
        guard let product = package.products.first(where: { $0.productId == request.productId }) else {
            throw SimulatorError(.notFound, "no product \(request.productId) in \(package.packageName)")
        }
        guard request.basePlanId == nil, request.offerId == nil else {
            throw SimulatorError(.badRequest, "a one-time product has no base plan or offer")
        }
        let token = makePurchaseToken()
        let pending = request.pending ?? false
        oneTimePurchases[token] = OneTimePurchaseRecord(
            token: token, packageName: package.packageName, productId: product.productId, orderId: makeOrderID(),
            purchaseTime: now, quantity: request.quantity ?? 1, consumable: product.consumable,
            accountId: request.obfuscatedExternalAccountId, profileId: request.obfuscatedExternalProfileId,
            isTest: request.test ?? false, regionCode: request.regionCode ?? "US", pending: pending)
        if !pending {
            emitOneTime(package.packageName, at: now, OneTimeProductNotification.purchased, token, product.productId)
        }
        return token
    }

    private mutating func emitOneTime(
        _ packageName: String, at: Instant, _ type: Int, _ token: String, _ productId: String
    ) {
        events.append(
            DeveloperNotification(
                packageName: packageName, eventTimeMillis: at.millisecondsSince1970,
                oneTimeProductNotification: OneTimeProductNotification(
                    notificationType: type, purchaseToken: token, sku: productId)))
    }

    // MARK: Pending purchases

    /// The user pays a pending purchase: it is granted now (a subscription's period starts now), the
    /// acknowledgement is due three days later, and SUBSCRIPTION_PURCHASED or ONE_TIME_PRODUCT_PURCHASED is sent.
    mutating func completePending(_ token: String, now: Instant) throws(SimulatorError) {
        if var record = subscriptions[token] {
            guard record.status == .pending else { throw SimulatorError(.conflict, "the purchase is not pending") }
            record.status = .active
            record.startTime = now
            record.periodEnd = record.firstPeriodEnd(after: now)
            record.recordOrder(periodStart: now, at: now)
            subscriptions[token] = record
            emit(record.packageName, at: now, subscription: .purchased, token)
        } else if var record = oneTimePurchases[token] {
            guard record.pending else { throw SimulatorError(.conflict, "the purchase is not pending") }
            record.pending = false
            record.completedAt = now
            oneTimePurchases[token] = record
            emitOneTime(record.packageName, at: now, OneTimeProductNotification.purchased, token, record.productId)
        } else {
            throw SimulatorError(.notFound, "no purchase \(token)")
        }
    }

    /// The user never pays a pending purchase: it is canceled, never granted, and SUBSCRIPTION_PENDING_PURCHASE_CANCELED
    /// or ONE_TIME_PRODUCT_CANCELED is sent.
    mutating func cancelPending(_ token: String, now: Instant) throws(SimulatorError) {
        if var record = subscriptions[token] {
            guard record.status == .pending else { throw SimulatorError(.conflict, "the purchase is not pending") }
            record.status = .pendingPurchaseCanceled
            record.autoRenew = false
            if let index = record.orders.indices.last {
                record.orders[index].state = .canceled
                record.orders[index].lastEventAt = now
            }
            subscriptions[token] = record
            emit(record.packageName, at: now, subscription: .pendingPurchaseCanceled, token)
        } else if var record = oneTimePurchases[token] {
            guard record.pending else { throw SimulatorError(.conflict, "the purchase is not pending") }
            record.pending = false
            record.pendingCanceled = true
            oneTimePurchases[token] = record
            emitOneTime(record.packageName, at: now, OneTimeProductNotification.canceled, token, record.productId)
        } else {
            throw SimulatorError(.notFound, "no purchase \(token)")
        }
    }

    private func basePlan(of subscription: SubscriptionDefinition, _ id: String?) throws(SimulatorError)
        -> BasePlanDefinition
    {
        guard let id else {
            guard subscription.basePlans.count == 1 else {
                throw SimulatorError(.badRequest, "base_plan_id is required: \(subscription.productId) has several")
            }
            return subscription.basePlans[0]
        }
        guard let plan = subscription.basePlans.first(where: { $0.basePlanId == id }) else {
            throw SimulatorError(.notFound, "no base plan \(id) in \(subscription.productId)")
        }
        return plan
    }

    private func offer(of plan: BasePlanDefinition, _ id: String?) throws(SimulatorError) -> OfferDefinition? {
        guard let id else { return nil }
        guard let offer = plan.offers.first(where: { $0.offerId == id }) else {
            throw SimulatorError(.notFound, "no offer \(id) in base plan \(plan.basePlanId)")
        }
        return offer
    }

    // MARK: Subscription actions

    func subscription(_ token: String) throws(SimulatorError) -> SubscriptionRecord {
        guard let record = subscriptions[token] else { throw SimulatorError(.notFound, "no subscription \(token)") }
        return record
    }

    /// Turns renewal off (the user in the Play Store, or the developer through the API): CANCELED, entitled to
    /// the period's end.
    mutating func cancel(_ token: String, by initiator: CanceledStateContext.Initiator, now: Instant)
        throws(SimulatorError)
    {
        var record = try subscription(token)
        guard record.autoRenew, [.active, .inGracePeriod, .onHold, .paused].contains(record.status) else {
            throw SimulatorError(.conflict, "the subscription is not renewing")
        }
        record.autoRenew = false
        record.cancellation = initiator
        record.cancelTime = now
        record.scheduledPauseMilliseconds = nil
        switch record.status {
        case .active:
            record.status = .canceled
        default:
            // Canceling while payment is failing, or paused, ends it now.
            record.status = .expired
            record.periodEnd = min(record.periodEnd, now)
            record.expiredAt = now
            record.graceEnd = nil
            record.holdEnd = nil
            record.autoResume = nil
        }
        emit(record.packageName, at: now, subscription: .canceled, token)
        if record.status == .expired { emit(record.packageName, at: now, subscription: .expired, token) }
        subscriptions[token] = record
    }

    /// The user restores a canceled subscription before it expires: RESTARTED.
    mutating func restart(_ token: String, now: Instant) throws(SimulatorError) {
        var record = try subscription(token)
        guard record.status == .canceled else {
            throw SimulatorError(.conflict, "only a canceled subscription restarts")
        }
        record.status = .active
        record.autoRenew = true
        record.cancellation = nil
        record.cancelTime = nil
        emit(record.packageName, at: now, subscription: .restarted, token)
        subscriptions[token] = record
    }

    /// Payment fails from now on: the next renewal enters the grace period (or account hold).
    mutating func failBilling(_ token: String) throws(SimulatorError) {
        var record = try subscription(token)
        guard record.status != .expired, !record.status.isPending else {
            throw SimulatorError(.conflict, "the subscription is not renewing")
        }
        record.billingFailing = true
        subscriptions[token] = record
    }

    /// Payment works again. In the grace period the missed renewal is charged (the period runs from the
    /// missed date); on account hold a new period starts now. SUBSCRIPTION_RECOVERED.
    mutating func recoverBilling(_ token: String, now: Instant) throws(SimulatorError) {
        var record = try subscription(token)
        record.billingFailing = false
        switch record.status {
        case .inGracePeriod:
            record.status = .active
            record.graceEnd = nil
            record.renew(periodStart: record.periodEnd, at: now)
            emit(record.packageName, at: now, subscription: .recovered, token)
        case .onHold:
            record.status = .active
            record.holdEnd = nil
            record.renew(periodStart: now, at: now)
            emit(record.packageName, at: now, subscription: .recovered, token)
        default:
            break
        }
        subscriptions[token] = record
    }

    /// The user schedules a pause of `days` (7 to 90), from the current period's end: PAUSE_SCHEDULE_CHANGED.
    mutating func schedulePause(_ token: String, days: Int, now: Instant) throws(SimulatorError) {
        guard (7...90).contains(days) else { throw SimulatorError(.badRequest, "days must be 7 to 90") }
        var record = try subscription(token)
        guard record.status == .active else { throw SimulatorError(.conflict, "only an active subscription pauses") }
        record.scheduledPauseMilliseconds = Int64(days) * Timing.day
        emit(record.packageName, at: now, subscription: .pauseScheduleChanged, token)
        subscriptions[token] = record
    }

    /// The user resumes: a paused subscription now (RECOVERED), or a scheduled pause is withdrawn
    /// (PAUSE_SCHEDULE_CHANGED).
    mutating func resume(_ token: String, now: Instant) throws(SimulatorError) {
        var record = try subscription(token)
        if record.status == .paused {
            resumeFromPause(&record, at: now)
        } else if record.scheduledPauseMilliseconds != nil {
            record.scheduledPauseMilliseconds = nil
            emit(record.packageName, at: now, subscription: .pauseScheduleChanged, token)
        } else {
            throw SimulatorError(.conflict, "the subscription is neither paused nor about to pause")
        }
        subscriptions[token] = record
    }

    /// An upgrade or downgrade, immediate and charged in full (Google's replacement mode `CHARGE_FULL_PRICE`): a new
    /// purchase token linked to the old one (`linkedPurchaseToken`) whose first period starts now; the old token
    /// ends now, canceled by replacement. SUBSCRIPTION_PURCHASED for the new.
    mutating func replace(_ token: String, with request: ChangePlanRequest, now: Instant) throws(SimulatorError)
        -> String
    {
        try PurchaseRequestValidation.checkProduct(
            request.productId, basePlanId: request.basePlanId, offerId: request.offerId)
        var old = try subscription(token)
        guard [.active, .canceled, .inGracePeriod].contains(old.status) else {
            throw SimulatorError(.conflict, "only an entitled subscription can be replaced")
        }
        let newToken = try purchase(
            PurchaseRequest(
                packageName: old.packageName, productId: request.productId, basePlanId: request.basePlanId,
                offerId: request.offerId,
                obfuscatedExternalAccountId: request.obfuscatedExternalAccountId ?? old.accountId,
                obfuscatedExternalProfileId: request.obfuscatedExternalProfileId ?? old.profileId, test: old.isTest,
                regionCode: old.regionCode),
            now: now)
        guard var new = subscriptions[newToken] else {
            throw SimulatorError(.badRequest, "\(request.productId) is not a subscription")
        }
        new.linkedPurchaseToken = token
        subscriptions[newToken] = new
        old.status = .expired
        old.autoRenew = false
        old.cancellation = .replacement
        old.cancelTime = now
        old.periodEnd = min(old.periodEnd, now)
        old.graceEnd = nil
        old.expiredAt = now
        old.replacedBy = newToken
        subscriptions[token] = old
        return newToken
    }

    /// A refund of the latest order (from the Play Console, or a chargeback): the order is voided; with
    /// `revoke` the subscription ends now.
    mutating func refundSubscription(_ token: String, _ request: RefundRequest, now: Instant) throws(SimulatorError) {
        var record = try subscription(token)
        guard !record.revoked else { throw SimulatorError(.conflict, "already refunded and revoked") }
        guard !record.status.isPending else { throw SimulatorError(.conflict, "a pending purchase was never charged") }
        let source = request.source ?? VoidedPurchase.Source.developer.rawValue
        let reason = request.reason ?? VoidedPurchase.Reason.other.rawValue
        if request.revoke ?? true {
            revoke(&record, at: now, source: source, reason: reason, initiator: .developer)
        } else {
            record.refundLatestOrder(at: now)
            voided.append(
                VoidedRecord(
                    packageName: record.packageName, token: token, orderId: record.latestOrderId,
                    purchaseTime: record.startTime, voidedTime: now,
                    source: source, reason: reason, isSubscription: true))
            emitVoided(record.packageName, at: now, token: token, orderId: record.latestOrderId, isSubscription: true)
        }
        subscriptions[token] = record
    }

    /// A one-time purchase refunded in full (or `quantity` of it): purchase state canceled when all is refunded.
    mutating func refundOneTime(_ token: String, _ request: RefundRequest, now: Instant) throws(SimulatorError) {
        guard var record = oneTimePurchases[token] else { throw SimulatorError(.notFound, "no purchase \(token)") }
        guard !record.refunded else { throw SimulatorError(.conflict, "already refunded") }
        guard !record.pending, !record.pendingCanceled else {
            throw SimulatorError(.conflict, "a pending purchase was never charged")
        }
        let remaining = record.quantity - record.refundedQuantity
        let quantity = request.quantity ?? remaining
        guard quantity >= 1, quantity <= remaining else {
            throw SimulatorError(.badRequest, "quantity must be 1 to \(remaining)")
        }
        record.refundedQuantity += quantity
        record.refunded = record.refundedQuantity == record.quantity
        let partial = !record.refunded || quantity < record.quantity
        voided.append(
            VoidedRecord(
                packageName: record.packageName, token: token, orderId: record.orderId,
                purchaseTime: record.purchaseTime, voidedTime: now,
                source: request.source ?? VoidedPurchase.Source.user.rawValue,
                reason: request.reason ?? VoidedPurchase.Reason.remorse.rawValue, isSubscription: false,
                voidedQuantity: partial ? quantity : nil))
        emitVoided(
            record.packageName, at: now, token: token, orderId: record.orderId, isSubscription: false, partial: partial)
        oneTimePurchases[token] = record
    }
}
