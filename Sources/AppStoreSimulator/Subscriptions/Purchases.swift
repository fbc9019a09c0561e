import AppStore
import Foundation
import SubLedgerCore

/// The outcome of a purchase: a transaction, or an Ask to Buy request waiting for approval.
struct PurchaseOutcome: Sendable {
    var transactionID: String?
    var askToBuyRequestID: String?
}

extension SimulatorState {
    /// Buys a product: a new subscription, a resubscription on the group's chain, or a one-time purchase.
    mutating func purchase(_ request: PurchaseRequest, _ context: Context) throws(SimulatorError) -> PurchaseOutcome {
        let app = try app(request.bundleID)
        let account = try account(request.appleID)
        let product = try app.product(request.productID)
        if let token = request.appAccountToken, UUID(uuidString: token) == nil {
            throw SimulatorError(.badRequest, "app_account_token must be a UUID")
        }
        if request.offer != nil, product.type != .autoRenewable {
            throw SimulatorError(.badRequest, "offers are for auto-renewable subscriptions only")
        }
        if request.askToBuy == true {
            let requestID = "ask-" + ids.uuid()
            var pending = request
            pending.askToBuy = false
            askToBuy[requestID] = AskToBuyRecord(requestID: requestID, purchase: pending, requestedAt: context.now)
            return PurchaseOutcome(askToBuyRequestID: requestID)
        }
        let key = AccountAppKey(appleID: account.appleID, bundleID: app.bundleID)
        // A UUID-shaped StoreKit 1 username becomes the app account token, as Apple does.
        let token =
            request.appAccountToken?.lowercased()
            ?? request.applicationUsername.flatMap { UUID(uuidString: $0) }.map { $0.uuidString.lowercased() }
        let usernameLost = request.emptyUsernameBug == true && request.applicationUsername != nil
        switch product.type {
        case .autoRenewable:
            return PurchaseOutcome(
                transactionID: try subscribe(
                    account: account, app: app, product: product, request: request, token: token,
                    usernameLost: usernameLost, context))
        case .nonConsumable:
            let owned = transactions(of: key).contains {
                $0.productID == product.productID && $0.revocationDate == nil && $0.ownership == .purchased
            }
            guard !owned else {
                throw SimulatorError(.conflict, "\(account.appleID) already owns \(product.productID)")
            }
            fallthrough
        case .consumable, .nonRenewing:
            let record = insertTransaction(
                account: account, app: app, product: product, originalTransactionID: nil,
                originalPurchaseDate: nil, purchaseDate: context.now, expiresDate: nil, reason: .purchase,
                quantity: product.type == .consumable ? max(request.quantity ?? 1, 1) : 1,
                appAccountToken: token, applicationUsername: request.applicationUsername,
                usernameLost: usernameLost, legacyReceipt: request.legacyReceipt == true)
            emit("ONE_TIME_CHARGE", key: key, transactionID: record.transactionID)
            return PurchaseOutcome(transactionID: record.transactionID)
        }
    }

    private mutating func subscribe(
        account: AppleIDDescription,
        app: AppRecord,
        product: ProductDefinition,
        request: PurchaseRequest,
        token: String?,
        usernameLost: Bool,
        _ context: Context
    ) throws(SimulatorError) -> String {
        let groupID = product.subscriptionGroupID ?? "group"
        let groupKey = GroupKey(appleID: account.appleID, bundleID: app.bundleID, groupID: groupID)
        let key = AccountAppKey(appleID: account.appleID, bundleID: app.bundleID)
        let duration = product.duration ?? .oneMonth
        let offer = try Self.checked(request.offer, product: product)
        let existingChain = chainByGroup[groupKey].flatMap { chains[$0] }
        if offer?.kind == .winBack, existingChain == nil || existingChain!.isEntitled {
            throw SimulatorError(.conflict, "a win-back offer is only for a subscriber whose subscription has ended")
        }
        // An offer code's purchase is told as OFFER_REDEEMED, any other as SUBSCRIBED.
        let notificationType = offer?.kind == .offerCode ? "OFFER_REDEEMED" : "SUBSCRIBED"
        if let existingID = chainByGroup[groupKey], var chain = chains[existingID] {
            if chain.isEntitled || chain.status == .billingRetry {
                guard chain.productID != product.productID else {
                    throw SimulatorError(.conflict, "\(account.appleID) is already subscribed to \(product.productID)")
                }
                return try changeProduct(chain.originalTransactionID, to: product.productID, context)
            }
            // Resubscribing in a group continues the group's chain: same original transaction id.
            let first = try transaction(chain.transactionIDs[0])
            let record = insertTransaction(
                account: account, app: app, product: product, originalTransactionID: chain.originalTransactionID,
                originalPurchaseDate: first.originalPurchaseDate, purchaseDate: context.now,
                expiresDate: duration.end(from: context.now, sandbox: context.sandboxDurations), reason: .purchase,
                appAccountToken: token ?? chain.appAccountToken, applicationUsername: request.applicationUsername,
                usernameLost: usernameLost, legacyReceipt: request.legacyReceipt == true || chain.legacyReceipts,
                offer: offer,
                commitment: Self.commitment(of: product, from: context.now, price: product.price, context))
            chain.transactionIDs.append(record.transactionID)
            chain.productID = product.productID
            chain.autoRenewProductID = product.productID
            chain.autoRenewEnabled = true
            chain.billingFailing = false
            chain.status = .active
            chain.expiresDate = record.expiresDate ?? context.now
            chain.gracePeriodExpiresDate = nil
            chain.billingRetryStartedAt = nil
            chain.expirationIntent = nil
            chain.recentSubscriptionStartDate = context.now
            if let token { chain.appAccountToken = token }
            save(chain)
            emit(notificationType, "RESUBSCRIBE", key: key, transactionID: record.transactionID)
            return record.transactionID
        }
        let trial = request.useFreeTrial != false && offer == nil ? product.freeTrial : nil
        let expires = (trial ?? duration).end(from: context.now, sandbox: context.sandboxDurations)
        let record = insertTransaction(
            account: account, app: app, product: product, originalTransactionID: nil, originalPurchaseDate: nil,
            purchaseDate: context.now, expiresDate: expires, reason: .purchase, isFreeTrial: trial != nil,
            appAccountToken: token, applicationUsername: request.applicationUsername, usernameLost: usernameLost,
            legacyReceipt: request.legacyReceipt == true, offer: offer,
            commitment: trial == nil
                ? Self.commitment(of: product, from: context.now, price: product.price, context) : nil)
        let chain = SubscriptionChainRecord(
            originalTransactionID: record.transactionID, appleID: account.appleID, bundleID: app.bundleID,
            environment: account.environment, groupID: groupID, productID: product.productID,
            autoRenewProductID: product.productID, expiresDate: expires, transactionIDs: [record.transactionID],
            legacyReceipts: request.legacyReceipt == true, recentSubscriptionStartDate: context.now,
            appAccountToken: token, applicationUsername: request.applicationUsername, usernameLost: usernameLost)
        chainByGroup[groupKey] = chain.originalTransactionID
        save(chain)
        emit(notificationType, "INITIAL_BUY", key: key, transactionID: record.transactionID)
        return record.transactionID
    }

    /// `offer` with its price and discount type settled against `product`, or why Apple would refuse it.
    static func checked(_ offer: OfferRedemption?, product: ProductDefinition) throws(SimulatorError)
        -> OfferRedemption?
    {
        guard var offer else { return nil }
        guard !offer.identifier.isEmpty, offer.identifier.utf8.count <= 64,
            offer.identifier.unicodeScalars.allSatisfy({ $0.isASCII && $0.value > 0x20 && $0.value < 0x7F })
        else {
            throw SimulatorError(.badRequest, "an offer identifier is 1 to 64 printable ASCII characters")
        }
        if offer.kind == .winBack, let known = product.winBackOffers, !known.contains(offer.identifier) {
            throw SimulatorError(.badRequest, "\(product.productID) has no win-back offer \(offer.identifier)")
        }
        let discount = offer.discountType ?? "PAY_AS_YOU_GO"
        guard OfferRedemption.discountTypes.contains(discount) else {
            throw SimulatorError(.badRequest, "discount_type must be FREE_TRIAL, PAY_AS_YOU_GO or PAY_UP_FRONT")
        }
        let full = product.price ?? 0
        let price = discount == "FREE_TRIAL" ? 0 : (offer.price ?? full / 2)
        guard price >= 0, price <= full else {
            throw SimulatorError(.badRequest, "an offer's price is 0 to the product's price")
        }
        offer.discountType = discount
        offer.price = price
        return offer
    }

    /// Approves an Ask to Buy request: the purchase happens now.
    mutating func approveAskToBuy(_ requestID: String, _ context: Context) throws(SimulatorError) -> PurchaseOutcome {
        guard let pending = askToBuy.removeValue(forKey: requestID) else {
            throw SimulatorError(.notFound, "Ask to Buy request \(requestID) does not exist")
        }
        return try purchase(pending.purchase, context)
    }

    /// Declines an Ask to Buy request: nothing is bought.
    mutating func declineAskToBuy(_ requestID: String) throws(SimulatorError) -> AskToBuyRecord {
        guard let pending = askToBuy.removeValue(forKey: requestID) else {
            throw SimulatorError(.notFound, "Ask to Buy request \(requestID) does not exist")
        }
        return pending
    }

    /// Marks a consumable finished; it leaves the app receipt, as on a device.
    mutating func finish(_ transactionID: String) throws(SimulatorError) -> TransactionRecord {
        var record = try transaction(transactionID)
        record.finished = true
        save(record)
        return record
    }
}
