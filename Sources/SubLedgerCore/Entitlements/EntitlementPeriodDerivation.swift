extension ChainSnapshot {
    /// The chain's whole answer to entitlement reads, as periods: for every instant `t`, the period containing
    /// `t` (at most one) names `owner(at: t)` and what `Ledger.entitlements(of:at:app:)` grants at `t`; no
    /// period means the chain grants nothing at `t`.
    ///
    /// Every rule of `state(at:in:)`, `latestTransaction(at:)` and `owner(at:)` compares `t` with a date of
    /// the chain (a purchase, expiry, revocation or upgrade date, a grace period's end, a binding change), and
    /// each comparison flips exactly at that date. So the answer is constant from one such date to the next,
    /// and evaluating it at each date gives every period exactly. Only the catalog's entitlement ids are left
    /// out (the read maps the product, so a catalog change needs no rewrite); a non-renewing chain, whose
    /// period end is the catalog's duration, gives periods that send the read to the chains. Consumables and
    /// chains of another bundle give none, as they grant no entitlements.
    public func entitlementPeriods(in app: App) -> [EntitlementPeriod] {
        guard header.bundleID == app.bundleID, header.productType != .consumable, !bindingChanges.isEmpty else {
            return []
        }
        if header.productType == .nonRenewing { return ownerPeriods() }
        var dates: Set<Instant> = []
        for change in bindingChanges { dates.insert(change.at) }
        for known in transactions {
            let transaction = known.transaction
            dates.insert(transaction.purchaseDate)
            if let expires = transaction.expiresDate { dates.insert(expires) }
            if let revoked = transaction.revocationDate { dates.insert(revoked) }
            for revocation in known.revocations { dates.insert(revocation.revocationDate) }
            if let end = periodEnd(of: known, in: app) { dates.insert(end) }
        }
        if let grace = header.renewalInfo?.gracePeriodExpiresDate { dates.insert(grace) }

        var periods: [EntitlementPeriod] = []
        for start in dates.sorted() {
            let grant = self.grant(at: start, in: app)
            let owner = owner(at: start)
            if var last = periods.last, last.until == nil {
                // The open period ends here unless nothing changed.
                if grant != nil, last.grant == grant, last.account == owner { continue }
                last.until = start
                periods[periods.count - 1] = last
            }
            if let grant, let owner {
                periods.append(EntitlementPeriod(account: owner, chain: key, from: start, until: nil, grant: grant))
            }
        }
        return periods
    }

    /// What the chain grants at `instant` whoever owns it, before the catalog maps the product.
    func grant(at instant: Instant, in app: App) -> EntitlementPeriod.Grant? {
        let state = state(at: instant, in: app)
        guard state.grantsAccess, let latest = latestTransaction(at: instant) else { return nil }
        let renewal = header.productType == .autoRenewable ? header.renewalInfo : nil
        return EntitlementPeriod.Grant(
            transactionID: latest.transactionID,
            productID: latest.transaction.productID,
            state: state,
            expiresAt: periodEnd(of: latest, in: app),
            gracePeriodExpiresAt: state == .gracePeriod ? renewal?.gracePeriodExpiresDate : nil,
            willAutoRenew: renewal?.willAutoRenew,
            ownershipType: latest.transaction.ownershipType)
    }

    /// One period per owner, over all time, each sending the read to the chains.
    private func ownerPeriods() -> [EntitlementPeriod] {
        var periods: [EntitlementPeriod] = []
        let starts = [Instant(millisecondsSince1970: .min)] + bindingChanges.dropFirst().map(\.at)
        for start in starts.sorted() {
            let owner = owner(at: start)
            if let last = periods.last, last.account == owner { continue }
            if periods.last != nil { periods[periods.count - 1].until = start }
            if let owner {
                periods.append(EntitlementPeriod(account: owner, chain: key, from: start, until: nil, grant: nil))
            }
        }
        return periods
    }
}
