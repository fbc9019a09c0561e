import AppStore
import SubLedgerCore

extension SimulatorState {
    /// Appends the next period to a chain, starting at `start`, with the auto-renew product
    /// (so a pending downgrade takes effect here). Family copies get their own renewal transactions.
    @discardableResult
    mutating func appendRenewal(
        _ originalTransactionID: String,
        start: Instant,
        _ context: Context
    ) throws(SimulatorError) -> String {
        guard var chain = chains[originalTransactionID] else {
            throw SimulatorError(.notFound, "subscription \(originalTransactionID) does not exist")
        }
        let app = try app(chain.bundleID)
        let account = try account(chain.appleID)
        let product = try app.product(chain.autoRenewProductID)
        let first = try transaction(chain.transactionIDs[0])
        let expires = (product.duration ?? .oneMonth).end(from: start, sandbox: context.sandboxDurations)
        // A commitment plan's renewal pays the next period of its commitment, or starts a new commitment.
        var commitment: TransactionRecord.CommitmentPeriod?
        if let previous = transactions[chain.latestTransactionID]?.commitment, previous.number < previous.total,
            product.commitmentPeriods != nil
        {
            commitment = previous
            commitment?.number += 1
        } else {
            commitment = Self.commitment(of: product, from: start, price: chain.renewalPrice(of: product), context)
        }
        let record = insertTransaction(
            account: account, app: app, product: product, originalTransactionID: chain.originalTransactionID,
            originalPurchaseDate: first.originalPurchaseDate, purchaseDate: start, expiresDate: expires,
            reason: .renewal, ownership: chain.ownership, appAccountToken: chain.appAccountToken,
            applicationUsername: chain.applicationUsername, usernameLost: chain.usernameLost,
            legacyReceipt: chain.legacyReceipts, price: chain.renewalPrice(of: product), commitment: commitment)
        // An increase the customer accepted takes effect with this renewal and stays.
        if let increase = chain.priceIncrease, increase.consented, increase.productID == product.productID {
            chain.increasedPrice = increase
            chain.priceIncrease = nil
        }
        chain.transactionIDs.append(record.transactionID)
        chain.productID = product.productID
        chain.expiresDate = expires
        chain.status = .active
        chain.gracePeriodExpiresDate = nil
        chain.billingRetryStartedAt = nil
        chain.expirationIntent = nil
        save(chain)
        for (_, memberOriginalID) in chain.familyShares.sorted(by: { $0.key < $1.key }) {
            guard let member = chains[memberOriginalID], member.status != .revoked else { continue }
            try appendRenewal(memberOriginalID, start: start, context)
        }
        return record.transactionID
    }

    /// A new commitment of `product` starting at `start` (its first period), when the product is a commitment
    /// plan: `commitmentPeriods` periods of its duration, at `price` each.
    static func commitment(
        of product: ProductDefinition, from start: Instant, price: Int64?, _ context: Context
    ) -> TransactionRecord.CommitmentPeriod? {
        guard let periods = product.commitmentPeriods, periods > 0 else { return nil }
        let duration = product.duration ?? .oneMonth
        var end = start
        for _ in 0..<periods { end = duration.end(from: end, sandbox: context.sandboxDurations) }
        return .init(number: 1, total: periods, endsAt: end, price: (price ?? product.price ?? 0) * Int64(periods))
    }

    /// Applies everything the clock has passed: renewals, billing failures, grace and retry ends, expiries.
    mutating func processDue(_ context: Context) throws(SimulatorError) {
        for id in chains.keys.sorted() {
            var steps = 0
            while steps < 10_000, let chain = chains[id], chain.sharedFromOriginalTransactionID == nil {
                steps += 1
                guard try processDueStep(chain, context) else { break }
            }
        }
    }

    /// One transition of a chain whose time has come; `false` when nothing was due.
    private mutating func processDueStep(
        _ chain: SubscriptionChainRecord,
        _ context: Context
    ) throws(SimulatorError) -> Bool {
        var chain = chain
        let key = AccountAppKey(appleID: chain.appleID, bundleID: chain.bundleID)
        let app = try app(chain.bundleID)
        switch chain.status {
        case .active:
            guard chain.expiresDate <= context.now else { return false }
            let committed = transactions[chain.latestTransactionID]?.commitment.map { $0.number < $0.total } ?? false
            if !chain.autoRenewEnabled && !committed {
                chain.status = .expired
                chain.expirationIntent = .customerCancelled
                save(chain)
                mirrorStatus(of: chain)
                emit("EXPIRED", "VOLUNTARY", key: key, transactionID: chain.latestTransactionID)
            } else if let increase = chain.priceIncrease, !increase.consented,
                increase.productID == chain.autoRenewProductID
            {
                // The customer never consented to the increase: the subscription ends at its renewal date.
                chain.status = .expired
                chain.autoRenewEnabled = false
                chain.expirationIntent = .customerDidNotConsentToPriceIncrease
                chain.priceIncrease = nil
                save(chain)
                mirrorStatus(of: chain)
                emit("EXPIRED", "PRICE_INCREASE", key: key, transactionID: chain.latestTransactionID)
            } else if chain.billingFailing {
                startBillingRetry(&chain, at: chain.expiresDate, app: app, context)
                emit(
                    "DID_FAIL_TO_RENEW", chain.status == .billingGracePeriod ? "GRACE_PERIOD" : nil, key: key,
                    transactionID: chain.latestTransactionID)
            } else {
                let id = try appendRenewal(chain.originalTransactionID, start: chain.expiresDate, context)
                emit("DID_RENEW", key: key, transactionID: id)
            }
            return true
        case .billingGracePeriod:
            guard let graceEnd = chain.gracePeriodExpiresDate, graceEnd <= context.now else { return false }
            chain.status = .billingRetry
            save(chain)
            mirrorStatus(of: chain)
            emit("GRACE_PERIOD_EXPIRED", key: key, transactionID: chain.latestTransactionID)
            return true
        case .billingRetry:
            let start = chain.billingRetryStartedAt ?? chain.expiresDate
            let end = start.adding(
                milliseconds: DayLength.milliseconds(
                    days: app.description.billingRetryDays, sandbox: context.sandboxDurations))
            guard end <= context.now else { return false }
            chain.status = .expired
            chain.expirationIntent = .billingError
            chain.gracePeriodExpiresDate = nil
            save(chain)
            mirrorStatus(of: chain)
            emit("EXPIRED", "BILLING_RETRY", key: key, transactionID: chain.latestTransactionID)
            return true
        case .expired, .revoked:
            return false
        }
    }

    private mutating func startBillingRetry(
        _ chain: inout SubscriptionChainRecord,
        at failure: Instant,
        app: AppRecord,
        _ context: Context
    ) {
        chain.billingRetryStartedAt = failure
        chain.expirationIntent = .billingError
        let graceDays = app.description.gracePeriodDays
        if graceDays > 0 {
            chain.status = .billingGracePeriod
            chain.gracePeriodExpiresDate = failure.adding(
                milliseconds: DayLength.milliseconds(days: graceDays, sandbox: context.sandboxDurations))
        } else {
            chain.status = .billingRetry
        }
        save(chain)
        mirrorStatus(of: chain)
    }

    /// Copies a purchaser's chain status to its family copies.
    mutating func mirrorStatus(of chain: SubscriptionChainRecord) {
        for (_, memberOriginalID) in chain.familyShares {
            guard var member = chains[memberOriginalID], member.status != .revoked else { continue }
            member.status = chain.status
            member.expirationIntent = chain.expirationIntent
            member.gracePeriodExpiresDate = chain.gracePeriodExpiresDate
            member.billingRetryStartedAt = chain.billingRetryStartedAt
            member.autoRenewEnabled = chain.autoRenewEnabled
            member.autoRenewProductID = chain.autoRenewProductID
            save(member)
        }
    }

    /// Renews a subscription now (a new period starting now), or fails to when billing is failing.
    mutating func renewNow(_ id: String, _ context: Context) throws(SimulatorError) -> String {
        var chain = try chain(containing: id)
        try requirePurchaser(chain)
        let key = AccountAppKey(appleID: chain.appleID, bundleID: chain.bundleID)
        guard chain.status == .active || chain.status == .billingGracePeriod || chain.status == .billingRetry else {
            throw SimulatorError(.conflict, "subscription \(chain.originalTransactionID) has ended; purchase again")
        }
        guard chain.autoRenewEnabled else {
            throw SimulatorError(.conflict, "auto-renew is off for \(chain.originalTransactionID)")
        }
        if chain.billingFailing {
            guard chain.status == .active else {
                throw SimulatorError(.conflict, "renewal is already failing; recover billing first")
            }
            chain.expiresDate = context.now
            try endLatestPeriod(chain, at: context.now)
            startBillingRetry(&chain, at: context.now, app: try app(chain.bundleID), context)
            emit(
                "DID_FAIL_TO_RENEW", chain.status == .billingGracePeriod ? "GRACE_PERIOD" : nil, key: key,
                transactionID: chain.latestTransactionID)
            return chain.latestTransactionID
        }
        let newID = try appendRenewal(chain.originalTransactionID, start: context.now, context)
        emit("DID_RENEW", chain.status == .active ? nil : "BILLING_RECOVERY", key: key, transactionID: newID)
        return newID
    }

    /// Turns auto-renew on or off.
    mutating func setAutoRenew(_ id: String, enabled: Bool, _ context: Context) throws(SimulatorError) -> String {
        var chain = try chain(containing: id)
        try requirePurchaser(chain)
        guard chain.status != .expired, chain.status != .revoked else {
            throw SimulatorError(.conflict, "subscription \(chain.originalTransactionID) has ended")
        }
        guard chain.autoRenewEnabled != enabled else {
            throw SimulatorError(.conflict, "auto-renew is already \(enabled ? "on" : "off")")
        }
        chain.autoRenewEnabled = enabled
        chain.expirationIntent = enabled ? nil : .customerCancelled
        save(chain)
        mirrorStatus(of: chain)
        emit(
            "DID_CHANGE_RENEWAL_STATUS", enabled ? "AUTO_RENEW_ENABLED" : "AUTO_RENEW_DISABLED",
            key: AccountAppKey(appleID: chain.appleID, bundleID: chain.bundleID),
            transactionID: chain.latestTransactionID)
        return chain.latestTransactionID
    }

    /// Apple announces a price increase of the chain's auto-renew product, effective at its next renewal:
    /// `PRICE_INCREASE` `PENDING` when the customer must consent (renewal info's `priceIncreaseStatus` 0; without
    /// consent the subscription expires at the renewal date), else `ACCEPTED` at once (status 1).
    mutating func increasePrice(
        _ id: String, to price: Int64, requiresConsent: Bool, _ context: Context
    ) throws(SimulatorError) -> String {
        var chain = try chain(containing: id)
        try requirePurchaser(chain)
        guard chain.isEntitled || chain.status == .billingRetry else {
            throw SimulatorError(.conflict, "subscription \(chain.originalTransactionID) has ended")
        }
        guard price > 0, price <= 1_000_000_000_000 else {
            throw SimulatorError(.badRequest, "price must be 1 to 10^12 milli-units")
        }
        guard chain.priceIncrease == nil else {
            throw SimulatorError(.conflict, "a price increase of \(chain.originalTransactionID) is already announced")
        }
        chain.priceIncrease = .init(productID: chain.autoRenewProductID, price: price, consented: !requiresConsent)
        save(chain)
        emit(
            "PRICE_INCREASE", requiresConsent ? "PENDING" : "ACCEPTED",
            key: AccountAppKey(appleID: chain.appleID, bundleID: chain.bundleID),
            transactionID: chain.latestTransactionID)
        return chain.latestTransactionID
    }

    /// The customer consents to the announced price increase: `PRICE_INCREASE` `ACCEPTED` (status 1).
    mutating func consentToPriceIncrease(_ id: String, _ context: Context) throws(SimulatorError) -> String {
        var chain = try chain(containing: id)
        guard var increase = chain.priceIncrease, !increase.consented else {
            throw SimulatorError(.conflict, "no price increase of \(chain.originalTransactionID) awaits consent")
        }
        increase.consented = true
        chain.priceIncrease = increase
        save(chain)
        emit(
            "PRICE_INCREASE", "ACCEPTED", key: AccountAppKey(appleID: chain.appleID, bundleID: chain.bundleID),
            transactionID: chain.latestTransactionID)
        return chain.latestTransactionID
    }

    /// Makes the chain's renewals fail (card declined) until recovery; `immediately` ends the period now.
    mutating func failBilling(_ id: String, immediately: Bool, _ context: Context) throws(SimulatorError) -> String {
        var chain = try chain(containing: id)
        try requirePurchaser(chain)
        guard chain.isEntitled || chain.status == .billingRetry else {
            throw SimulatorError(.conflict, "subscription \(chain.originalTransactionID) has ended")
        }
        chain.billingFailing = true
        if immediately, chain.status == .active {
            chain.expiresDate = context.now
            try endLatestPeriod(chain, at: context.now)
        }
        save(chain)
        try processDue(context)
        return chain.latestTransactionID
    }

    /// Billing works again: a chain in grace or billing retry renews now (DID_RENEW BILLING_RECOVERY).
    ///
    /// Recovered within the grace period, the new period starts at the missed renewal date (the customer
    /// lost no days); recovered later, it starts now.
    mutating func recoverBilling(_ id: String, _ context: Context) throws(SimulatorError) -> String {
        var chain = try chain(containing: id)
        try requirePurchaser(chain)
        chain.billingFailing = false
        save(chain)
        guard chain.status == .billingGracePeriod || chain.status == .billingRetry else {
            return chain.latestTransactionID
        }
        let start = chain.status == .billingGracePeriod ? chain.expiresDate : context.now
        let newID = try appendRenewal(chain.originalTransactionID, start: start, context)
        emit(
            "DID_RENEW", "BILLING_RECOVERY", key: AccountAppKey(appleID: chain.appleID, bundleID: chain.bundleID),
            transactionID: newID)
        return newID
    }

    /// Cuts the latest transaction's period short (simulator conveniences that end a period now).
    private mutating func endLatestPeriod(_ chain: SubscriptionChainRecord, at instant: Instant) throws(SimulatorError)
    {
        var latest = try transaction(chain.latestTransactionID)
        latest.expiresDate = instant
        save(latest)
    }

    func requirePurchaser(_ chain: SubscriptionChainRecord) throws(SimulatorError) {
        guard chain.sharedFromOriginalTransactionID == nil else {
            throw SimulatorError(
                .badRequest, "\(chain.originalTransactionID) is a family-shared copy; act on the purchaser's")
        }
    }
}
