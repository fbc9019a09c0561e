/// The entries a stored transaction implies: a pure function of what is known about it.
///
/// Because entries are derived from facts (assigned account, revocations observed, reversals observed)
/// and not from the path that led there, applying inputs in any order yields the same entries; applying an
/// input emits exactly the derived entries that were not derived before it.
enum LedgerEntryDerivation {
    /// Everything `known` implies on `chain`, or nothing while it is unclaimed.
    static func entries(for known: KnownTransaction, on chain: ChainSnapshot, app: App) -> [LedgerEntry] {
        guard let account = known.account else { return [] }
        let transaction = known.transaction
        let environment = transaction.environment
        let id = transaction.transactionID
        let product = app.product(transaction.productID)
        let isConsumable = chain.header.productType == .consumable
        let credits =
            product?.creditsPerUnit.map { $0.saturatingMultiplied(by: Int64(max(transaction.quantity, 1))) } ?? 0
        // The period as Apple stated it, not cut short by an upgrade: an entry's content must not depend on
        // whether the upgrade was known when the entry was first derived (the upgrade has its own entry).
        let periodEnd = chain.statedPeriodEnd(of: known, in: app)

        func entry(
            _ kind: LedgerEntry.Kind,
            key: String,
            at instant: Instant,
            periodEnd: Instant? = nil,
            reason: LedgerEntry.Reason
        ) -> LedgerEntry {
            LedgerEntry(
                idempotencyKey: key,
                kind: kind,
                account: account,
                bundleID: chain.header.bundleID,
                environment: environment,
                chainID: transaction.chainID,
                transactionID: id,
                productID: transaction.productID,
                entitlementIDs: product?.entitlementIDs ?? [],
                credits: kind == .credit || kind == .debit ? credits : nil,
                effectiveAt: instant,
                periodEnd: periodEnd,
                reason: reason
            )
        }

        var entries: [LedgerEntry] = []
        if isConsumable {
            entries.append(
                entry(
                    .credit, key: IdempotencyKey.credit(environment, transactionID: id),
                    at: transaction.purchaseDate, reason: .purchase))
        } else if chain.header.productType == .autoRenewable, !transaction.startsChain {
            entries.append(
                entry(
                    .extend, key: IdempotencyKey.extend(environment, transactionID: id),
                    at: transaction.purchaseDate, periodEnd: periodEnd, reason: .renewal))
        } else {
            entries.append(
                entry(
                    .grant, key: IdempotencyKey.grant(environment, transactionID: id),
                    at: transaction.purchaseDate, periodEnd: periodEnd, reason: .purchase))
        }
        if Revocation.isUpgradeMarker(transaction), let moment = transaction.revocationDate {
            entries.append(
                entry(
                    .revoke, key: IdempotencyKey.revoke(environment, transactionID: id, revokedAt: moment),
                    at: moment, reason: .upgrade))
        }
        for revocation in known.revocations {
            let date = revocation.revocationDate
            let reason: LedgerEntry.Reason = revocation.isFamilySharing ? .familySharingRevoked : .refund
            if isConsumable {
                entries.append(
                    entry(
                        .debit, key: IdempotencyKey.debit(environment, transactionID: id, revokedAt: date),
                        at: date, reason: reason))
            } else {
                entries.append(
                    entry(
                        .revoke, key: IdempotencyKey.revoke(environment, transactionID: id, revokedAt: date),
                        at: date, reason: reason))
            }
            guard known.isReversed(revocation) else { continue }
            // A reversal undoes the revocation from its own date: effective as if it had never happened.
            if isConsumable {
                entries.append(
                    entry(
                        .credit,
                        key: IdempotencyKey.creditReversal(environment, transactionID: id, revokedAt: date),
                        at: date, reason: .revocationReversed))
            } else {
                entries.append(
                    entry(
                        .restore, key: IdempotencyKey.restore(environment, transactionID: id, revokedAt: date),
                        at: date, periodEnd: periodEnd, reason: .revocationReversed))
            }
        }
        return entries
    }

    /// Everything the chain's transactions imply, keyed by idempotency key.
    static func entries(on chain: ChainSnapshot, app: App) -> [String: LedgerEntry] {
        var byKey: [String: LedgerEntry] = [:]
        for known in chain.transactions {
            for entry in entries(for: known, on: chain, app: app) where byKey[entry.idempotencyKey] == nil {
                byKey[entry.idempotencyKey] = entry
            }
        }
        return byKey
    }

    /// The pair of entries recording `change`, a transfer from `from`.
    static func transferEntries(
        for change: BindingChange,
        from: AccountID,
        transactionID: String,
        on chain: ChainSnapshot,
        app: App
    ) -> [LedgerEntry] {
        let reason: LedgerEntry.Reason =
            switch change.reason {
            case .latestSubmitterTakes: .latestSubmitterTakes
            case .accountMerge: .accountMerge
            case .firstClaim, .ownerNotActivelyAutoRenewing: .ownerNotActivelyAutoRenewing
            }
        return [(LedgerEntry.Kind.transferOut, from, nil), (.transferIn, change.to, chain.header.latestExpiry)].map {
            kind, account, periodEnd in
            LedgerEntry(
                idempotencyKey: IdempotencyKey.transfer(kind, change: change, from: from, transactionID: transactionID),
                kind: kind,
                account: account,
                bundleID: chain.header.bundleID,
                environment: change.chain.environment,
                chainID: change.chain.chainID,
                transactionID: transactionID,
                productID: chain.header.productID,
                entitlementIDs: app.product(chain.header.productID)?.entitlementIDs ?? [],
                effectiveAt: change.at,
                periodEnd: periodEnd,
                reason: reason
            )
        }
    }
}
