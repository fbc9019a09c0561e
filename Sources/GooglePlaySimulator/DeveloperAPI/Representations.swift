import GooglePlay
import SubLedgerCore

extension SubscriptionRecord {
    /// The record as `purchases.subscriptionsv2.get` answers it.
    var wire: SubscriptionPurchaseV2 {
        let state: SubscriptionState =
            switch status {
            case .pending: .pending
            case .pendingPurchaseCanceled: .pendingPurchaseCanceled
            case .active: .active
            case .canceled: .canceled
            case .inGracePeriod: .inGracePeriod
            case .onHold: .onHold
            case .paused: .paused
            case .expired: .expired
            }
        let canceledContext: CanceledStateContext? =
            switch cancellation {
            case .user?:
                CanceledStateContext(
                    userInitiatedCancellation: UserInitiatedCancellation(
                        cancelTime: cancelTime.map(GoogleTime.format)))
            case .system?: CanceledStateContext(systemInitiatedCancellation: EmptyContext())
            case .developer?: CanceledStateContext(developerInitiatedCancellation: EmptyContext())
            case .replacement?: CanceledStateContext(replacementCancellation: EmptyContext())
            case nil: nil
            }
        return SubscriptionPurchaseV2(
            regionCode: regionCode,
            lineItems: [
                SubscriptionPurchaseLineItem(
                    productId: productId, expiryTime: GoogleTime.format(expiry),
                    autoRenewingPlan: AutoRenewingPlan(
                        autoRenewEnabled: autoRenew,
                        recurringPrice: Money(currencyCode: currencyCode, micros: priceMicros)),
                    offerDetails: OfferDetails(basePlanId: basePlanId, offerId: offerId, offerTags: offerTags),
                    offerPhase: isInFreeTrial
                        ? OfferPhase(freeTrial: EmptyContext()) : OfferPhase(basePrice: EmptyContext()),
                    latestSuccessfulOrderId: latestOrderId)
            ],
            startTime: GoogleTime.format(startTime), subscriptionState: state, latestOrderId: latestOrderId,
            linkedPurchaseToken: linkedPurchaseToken,
            pausedStateContext: status == .paused
                ? PausedStateContext(autoResumeTime: autoResume.map(GoogleTime.format)) : nil,
            canceledStateContext: status == .canceled || status == .expired ? canceledContext : nil,
            testPurchase: isTest ? EmptyContext() : nil,
            acknowledgementState: acknowledged ? .acknowledged : .pending,
            externalAccountIdentifiers: accountId == nil && profileId == nil
                ? nil
                : ExternalAccountIdentifiers(
                    obfuscatedExternalAccountId: accountId, obfuscatedExternalProfileId: profileId),
            inGracePeriodStateContext: status == .inGracePeriod ? RenewalDeclinedStateContext() : nil,
            onHoldStateContext: status == .onHold ? RenewalDeclinedStateContext() : nil)
    }

    func description(messageIds: [String]) -> PurchaseDescription {
        PurchaseDescription(
            purchaseToken: token, packageName: packageName, productId: productId, kind: "subscription",
            orderId: latestOrderId, basePlanId: basePlanId, offerId: offerId, state: status.snakeCase,
            acknowledged: acknowledged, linkedPurchaseToken: linkedPurchaseToken,
            expiryTime: expiry.millisecondsSince1970, messageIds: messageIds)
    }
}

extension SubscriptionRecord.Status {
    var snakeCase: String {
        switch self {
        case .pending: "pending"
        case .pendingPurchaseCanceled: "pending_purchase_canceled"
        case .active: "active"
        case .canceled: "canceled"
        case .inGracePeriod: "in_grace_period"
        case .onHold: "on_hold"
        case .paused: "paused"
        case .expired: "expired"
        }
    }
}

extension OneTimePurchaseRecord {
    /// The record as `purchases.products.get` answers it.
    var wire: ProductPurchase {
        ProductPurchase(
            purchaseTimeMillis: String(purchaseTime.millisecondsSince1970),
            purchaseState: pending ? 2 : refunded || pendingCanceled ? 1 : 0,
            consumptionState: consumed ? 1 : 0, orderId: orderId, purchaseType: isTest ? 0 : nil,
            acknowledgementState: acknowledged ? 1 : 0, purchaseToken: nil, productId: productId, quantity: quantity,
            obfuscatedExternalAccountId: accountId, obfuscatedExternalProfileId: profileId, regionCode: regionCode,
            refundableQuantity: refunded ? 0 : quantity - refundedQuantity)
    }

    /// The record as `purchases.productsv2.getproductpurchasev2` answers it.
    var wireV2: ProductPurchaseV2 {
        ProductPurchaseV2(
            productLineItem: [
                ProductLineItem(
                    productId: productId,
                    productOfferDetails: ProductOfferDetails(
                        quantity: quantity, refundableQuantity: refunded ? 0 : quantity - refundedQuantity,
                        consumptionState: consumed ? .consumed : .yetToBeConsumed))
            ],
            purchaseCompletionTime: GoogleTime.format(purchaseTime),
            purchaseStateContext: PurchaseStateContext(
                purchaseState: pending ? .pending : refunded || pendingCanceled ? .cancelled : .purchased),
            orderId: orderId, acknowledgementState: acknowledged ? .acknowledged : .pending,
            obfuscatedExternalAccountId: accountId, obfuscatedExternalProfileId: profileId, regionCode: regionCode,
            testPurchaseContext: isTest ? TestPurchaseContext(fopType: "TEST") : nil)
    }

    func description(messageIds: [String]) -> PurchaseDescription {
        PurchaseDescription(
            purchaseToken: token, packageName: packageName, productId: productId, kind: "one_time", orderId: orderId,
            basePlanId: nil, offerId: nil,
            state: pending
                ? "pending"
                : pendingCanceled
                    ? "pending_purchase_canceled" : refunded ? "refunded" : consumed ? "consumed" : "purchased",
            acknowledged: acknowledged, linkedPurchaseToken: nil, expiryTime: nil, messageIds: messageIds)
    }
}

extension SubscriptionRecord {
    /// `order` as `orders.get` answers it.
    func orderWire(_ order: SubscriptionOrderRecord) -> GooglePlayOrder {
        let total = Money(currencyCode: order.currencyCode, micros: order.priceMicros)
        let tax = Money(currencyCode: order.currencyCode, micros: 0)
        return GooglePlayOrder(
            orderId: order.orderId, purchaseToken: token, state: order.state,
            createTime: GoogleTime.format(order.createdAt), lastEventTime: GoogleTime.format(order.lastEventAt),
            total: total, tax: tax,
            lineItems: [
                OrderLineItem(
                    productId: productId, productTitle: productId,
                    listingPrice: Money(currencyCode: currencyCode, micros: priceMicros), total: total, tax: tax,
                    subscriptionDetails: OrderSubscriptionDetails(
                        basePlanId: basePlanId, offerId: offerId, offerPhase: order.offerPhase,
                        servicePeriodStartTime: GoogleTime.format(order.periodStart),
                        servicePeriodEndTime: GoogleTime.format(order.periodEnd)))
            ])
    }
}

extension OneTimePurchaseRecord {
    /// The purchase's one order as `orders.get` answers it, at `unitPriceMicros` each in `currencyCode`.
    func orderWire(unitPriceMicros: Int64, currencyCode: String) -> GooglePlayOrder {
        let (amount, overflow) = unitPriceMicros.multipliedReportingOverflow(by: Int64(quantity))
        let total = Money(currencyCode: currencyCode, micros: overflow ? 0 : amount)
        let tax = Money(currencyCode: currencyCode, micros: 0)
        let state: OrderState =
            pending
            ? .pending
            : pendingCanceled
                ? .canceled : refunded ? .refunded : refundedQuantity > 0 ? .partiallyRefunded : .processed
        let created = GoogleTime.format(purchaseTime)
        return GooglePlayOrder(
            orderId: orderId, purchaseToken: token, state: state, createTime: created,
            lastEventTime: GoogleTime.format(completedAt ?? purchaseTime), total: total, tax: tax,
            lineItems: [
                OrderLineItem(
                    productId: productId, productTitle: productId,
                    listingPrice: Money(currencyCode: currencyCode, micros: unitPriceMicros), total: total, tax: tax,
                    oneTimePurchaseDetails: OrderOneTimePurchaseDetails(quantity: quantity))
            ])
    }
}

extension SimulatorState {
    /// The order `orderId` names in `packageName`, as `orders.get` answers it; `nil` when there is none (or it is
    /// another package's).
    func order(_ orderId: String, in packageName: String) -> GooglePlayOrder? {
        let base = GoogleOrderID(orderId)?.base ?? orderId
        for record in subscriptions.values where record.orderBase == base && record.packageName == packageName {
            if let order = record.orders.first(where: { $0.orderId == orderId }) { return record.orderWire(order) }
        }
        for record in oneTimePurchases.values where record.orderId == orderId && record.packageName == packageName {
            let product = packages[packageName]?.products.first { $0.productId == record.productId }
            return record.orderWire(
                unitPriceMicros: product?.priceMicros ?? 0, currencyCode: product?.currencyCode ?? "USD")
        }
        return nil
    }
}
