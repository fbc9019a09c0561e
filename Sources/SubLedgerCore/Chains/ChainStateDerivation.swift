extension ChainSnapshot {
    /// The chain's state at `instant`, by the rules documented on `ChainState`.
    ///
    /// `app` supplies the duration of non-renewing products (Apple states none).
    public func state(at instant: Instant, in app: App) -> ChainState {
        guard let latest = latestTransaction(at: instant) else {
            return .expired(ExpirationReason(expirationIntent: header.renewalInfo?.expirationIntent))
        }
        if latest.revocation(inForceAt: instant) != nil { return .revoked }
        switch header.productType {
        case .nonConsumable, .consumable:
            return .active
        case .nonRenewing:
            guard let end = periodEnd(of: latest, in: app), instant < end else { return .expired(.periodEnded) }
            return .active
        case .autoRenewable:
            return subscriptionState(latest: latest, at: instant)
        }
    }

    private func subscriptionState(latest: KnownTransaction, at instant: Instant) -> ChainState {
        if latest.transaction.isUpgraded {
            // Without a known upgrade moment the successor is simply not known yet: the chain has moved on.
            guard let moment = latest.upgradeMoment, moment > instant else { return .upgradedAway }
        }
        if let expiry = latest.transaction.expiresDate, instant < expiry { return .active }
        let renewal = header.renewalInfo
        if let renewal, renewal.isInBillingRetryPeriod {
            if let grace = renewal.gracePeriodExpiresDate, instant < grace { return .gracePeriod }
            return .billingRetry
        }
        return .expired(ExpirationReason(expirationIntent: renewal?.expirationIntent))
    }

    /// When `known`'s paid period ends: its expiry, cut short by an upgrade; for a non-renewing purchase,
    /// its purchase date plus the catalog duration; `nil` for products that do not expire.
    func periodEnd(of known: KnownTransaction, in app: App) -> Instant? {
        guard header.productType == .autoRenewable, let moment = known.upgradeMoment else {
            return statedPeriodEnd(of: known, in: app)
        }
        return known.transaction.expiresDate.map { min($0, moment) } ?? moment
    }

    /// The period end as stated: Apple's `expiresDate`, or the catalog duration for non-renewing purchases.
    func statedPeriodEnd(of known: KnownTransaction, in app: App) -> Instant? {
        switch header.productType {
        case .autoRenewable:
            return known.transaction.expiresDate
        case .nonRenewing:
            guard let duration = app.product(known.transaction.productID)?.durationMilliseconds else { return nil }
            return known.transaction.purchaseDate.adding(milliseconds: duration)
        case .nonConsumable, .consumable:
            return nil
        }
    }
}
