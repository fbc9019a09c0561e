extension Ledger {
    /// The entitlements `account` holds at `instant` from `chains` of `app`, one per entitlement id, sorted.
    ///
    /// A chain counts when `account` owns it at `instant` (`ChainSnapshot.owner(at:)`: a transfer ends the
    /// previous owner's entitlement at the transfer) and its state at `instant` grants access: `active`
    /// (a non-consumable not revoked; a non-renewing purchase within its duration; a subscription whose
    /// latest period has not ended and was neither refunded nor upgraded away) or `gracePeriod`. Billing
    /// retry without grace does not. The product is that of the chain's latest transaction at `instant`, so
    /// an upgrade ends the old product at the upgrade moment. Consumables grant credits, not entitlements.
    ///
    /// When several chains grant one entitlement id, the best is chosen deterministically: `active` over
    /// `gracePeriod`, then the later end of access (never-ending first), then the higher group level
    /// (lower `groupLevel`), then product id, then original transaction id.
    public static func entitlements(
        for account: AccountID,
        at instant: Instant,
        chains: [ChainSnapshot],
        app: App,
        environment: StoreEnvironment? = nil
    ) -> [Entitlement] {
        var best: [String: Entitlement] = [:]
        for chain in chains
        where chain.header.bundleID == app.bundleID && chain.header.productType != .consumable
            && (environment == nil || chain.key.environment == environment)
            && chain.owner(at: instant) == account
        {
            for candidate in entitlements(of: chain, at: instant, app: app)
            where best[candidate.entitlementID].map({ isBetter(candidate, than: $0, app: app) }) ?? true {
                best[candidate.entitlementID] = candidate
            }
        }
        return best.keys.sorted().compactMap { best[$0] }
    }

    /// What one chain grants at `instant`, regardless of owner.
    static func entitlements(of chain: ChainSnapshot, at instant: Instant, app: App) -> [Entitlement] {
        let state = chain.state(at: instant, in: app)
        guard state.grantsAccess, let latest = chain.latestTransaction(at: instant),
            let product = app.product(latest.transaction.productID)
        else { return [] }
        let renewal = chain.header.productType == .autoRenewable ? chain.header.renewalInfo : nil
        return product.entitlementIDs.map {
            Entitlement(
                entitlementID: $0,
                productID: product.productID,
                productType: product.type,
                bundleID: chain.header.bundleID,
                environment: chain.key.environment,
                chainID: chain.key.chainID,
                transactionID: latest.transactionID,
                state: state,
                expiresAt: chain.periodEnd(of: latest, in: app),
                gracePeriodExpiresAt: state == .gracePeriod ? renewal?.gracePeriodExpiresDate : nil,
                willAutoRenew: renewal?.willAutoRenew,
                ownershipType: latest.transaction.ownershipType,
                store: product.store
            )
        }
    }

    /// The same answer as `entitlements(for:at:chains:app:)`, from the read model: the periods of the
    /// account's chains (those not containing `instant` or of another account are skipped). `nil` when a
    /// period at `instant` needs the chains (`EntitlementPeriod.needsChains`).
    public static func entitlements(
        from periods: [EntitlementPeriod], for account: AccountID, at instant: Instant, app: App
    ) -> [Entitlement]? {
        var best: [String: Entitlement] = [:]
        for period in periods where period.account == account && period.contains(instant) {
            guard let grant = period.grant else { return nil }
            guard let product = app.product(grant.productID) else { continue }
            for entitlementID in product.entitlementIDs {
                let candidate = Entitlement(
                    entitlementID: entitlementID,
                    productID: product.productID,
                    productType: product.type,
                    bundleID: app.bundleID,
                    environment: period.chain.environment,
                    chainID: period.chain.chainID,
                    transactionID: grant.transactionID,
                    state: grant.state,
                    expiresAt: grant.expiresAt,
                    gracePeriodExpiresAt: grant.gracePeriodExpiresAt,
                    willAutoRenew: grant.willAutoRenew,
                    ownershipType: grant.ownershipType, store: product.store)
                if best[entitlementID].map({ isBetter(candidate, than: $0, app: app) }) ?? true {
                    best[entitlementID] = candidate
                }
            }
        }
        return best.keys.sorted().compactMap { best[$0] }
    }

    static func isBetter(_ candidate: Entitlement, than current: Entitlement, app: App) -> Bool {
        func stateRank(_ entitlement: Entitlement) -> Int { entitlement.state == .active ? 1 : 0 }
        func endRank(_ entitlement: Entitlement) -> Int64 { entitlement.accessEndsAt?.millisecondsSince1970 ?? .max }
        func levelRank(_ entitlement: Entitlement) -> Int {
            -(app.product(entitlement.productID)?.groupLevel ?? Int.max)
        }
        if stateRank(candidate) != stateRank(current) { return stateRank(candidate) > stateRank(current) }
        if endRank(candidate) != endRank(current) { return endRank(candidate) > endRank(current) }
        if levelRank(candidate) != levelRank(current) { return levelRank(candidate) > levelRank(current) }
        return (candidate.productID, candidate.environment.rawValue, candidate.chainID)
            < (current.productID, current.environment.rawValue, current.chainID)
    }
}
