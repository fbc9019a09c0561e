/// Merging one account of an app into another (docs/guides/accounts.md, "Merging accounts"): everything the merged
/// account holds moves to the account it is merged into, as transfers in the ledger.
///
/// Unlike the ownership rule, a merge is explicit: every chain the merged account owns moves, whatever the app's
/// `OwnershipPolicy` would say, and its consumable credits move with it (a transfer of a chain moves no credits).
public enum AccountMerge {
    /// Why a merge is refused before anything is read.
    public enum Refusal: Error, Hashable, Sendable {
        /// The two accounts are one.
        case sameAccount
    }

    /// Checks what can be checked of a merge without the ledger.
    public static func check(from: AccountID, into: AccountID) throws(Refusal) {
        guard from != into else { throw Refusal.sameAccount }
    }

    /// The decision of merging `from` into `into` at `now`: each chain of `chains` that `from` owns gets a binding
    /// change (reason `account_merge`) and the transfer entries a transfer writes; each chain where `from` holds
    /// credits (`credits`, by chain, positive balances only) gets a `debit` of `from` and a `credit` of `into` of
    /// that many; and every transaction attributed to `from` is attributed to `into`, whoever owns its chain now, so
    /// the two ids never both show one customer's purchases and a resubmission of them is `into`'s. `chains` holds
    /// every chain named by either (owned, holding credits, or holding a transaction of `from`), as loaded under their
    /// locks. The ledger's entries stay as written: the transfers record the move.
    public static func decision(
        chains: [ChainSnapshot], credits: [ChainKey: Int64], from: AccountID, into: AccountID, app: App, now: Instant
    ) -> LedgerDecision {
        var decision = LedgerDecision()
        for var chain in chains.sorted(by: { $0.key < $1.key }) {
            let latest = chain.transactions.last?.transactionID ?? ""
            var changed = false
            if chain.header.owner == from {
                let change = BindingChange(
                    chain: chain.key, sequence: chain.bindingChanges.count, from: from, to: into,
                    reason: .accountMerge, at: now, transactionID: latest)
                chain.bindingChanges.append(change)
                chain.header.owner = into
                decision.bindingChanges.append(change)
                decision.entries += LedgerEntryDerivation.transferEntries(
                    for: change, from: from, transactionID: latest, on: chain, app: app)
                changed = true
            }
            for index in chain.transactions.indices where chain.transactions[index].account == from {
                chain.transactions[index].account = into
                changed = true
            }
            if let amount = credits[chain.key], amount > 0 {
                decision.entries += creditEntries(
                    amount, on: chain, sequence: chain.bindingChanges.count, from: from, into: into,
                    transactionID: latest, app: app, now: now)
            }
            if changed { decision.updatedChains.append(chain) }
        }
        return decision
    }

    /// The `debit` of `from` and the `credit` of `into` that move `amount` credits of `chain`.
    static func creditEntries(
        _ amount: Int64, on chain: ChainSnapshot, sequence: Int, from: AccountID, into: AccountID,
        transactionID: String, app: App, now: Instant
    ) -> [LedgerEntry] {
        [(LedgerEntry.Kind.debit, from), (.credit, into)].map { kind, account in
            LedgerEntry(
                idempotencyKey: IdempotencyKey.mergedCredits(
                    kind, chain: chain.key, sequence: sequence, from: from, into: into, at: now),
                kind: kind, account: account, bundleID: chain.header.bundleID, environment: chain.key.environment,
                chainID: chain.key.chainID, transactionID: transactionID,
                productID: chain.header.productID,
                entitlementIDs: app.product(chain.header.productID)?.entitlementIDs ?? [], credits: amount,
                effectiveAt: now, periodEnd: nil, reason: .accountMerge)
        }
    }
}

extension Ledger {
    /// Everything a merge writes (`AccountMerge.decision`) with what follows from it as from an apply: entitlement
    /// periods, the calls owed to the stores, webhook events for both accounts and clock moments.
    public static func writes(
        merging from: AccountID, into: AccountID, snapshot: LedgerSnapshot, credits: [ChainKey: Int64], app: App,
        cause: WebhookEventCause, now: Instant
    ) -> LedgerWrites {
        let decision = AccountMerge.decision(
            chains: snapshot.chains, credits: credits, from: from, into: into, app: app, now: now)
        // The events of a merge are those of its entries and chains; an empty input asks nothing of the stores.
        let input = LedgerInput(
            kind: .poll, bundleID: app.bundleID, environment: snapshot.chains.first?.key.environment ?? .production,
            transactions: [])
        return LedgerWrites(
            decision: decision,
            newAccounts: [into],
            periods: decision.updatedChains.map { ChainEntitlementPeriods(of: $0, in: app) },
            obligations: StoreObligation.owed(by: decision, on: snapshot, app: app),
            events: WebhookEventDerivation.drafts(
                input: input, cause: cause, before: snapshot.chains, decision: decision, app: app, now: now),
            clockMoments: WebhookClockDerivation.moments(
                before: snapshot.chains, decision: decision, app: app, now: now),
            accountsByTransaction: [:])
    }
}
