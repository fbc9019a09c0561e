extension StoreObligation {
    /// What `decision` (taken on `snapshot`) owes the stores under `app`'s catalog, in a stable order: the App Store's
    /// calls the app's `write_back` policy enables, then Google Play's acknowledgements.
    ///
    /// App Store (`WriteBackPolicy`):
    /// - for each chain bound to an account by the decision (its newest binding): Set App Account Token, unless
    ///   the chain is shared through Family Sharing (Apple refuses those) or its newest transaction's token already
    ///   names the account (by the account's id, a token the storage layer resolved to it, or one of its orders);
    /// - for each consumable or non-consumable purchase credited by the decision: Finish Transaction.
    ///
    /// Google Play (always: Google refunds a purchase left unacknowledged three days): for each Google Play
    /// transaction to which the decision recorded a grant, an extension or a credit, the acknowledgement (a
    /// consumable's consumption) of its purchase token. A renewal on a token acknowledged before owes the same
    /// acknowledgement again, which the storage layer records once.
    public static func owed(by decision: LedgerDecision, on snapshot: LedgerSnapshot, app: App) -> [StoreObligation] {
        // Every other store is told nothing after an apply (Stripe: a paid invoice needs no acknowledgement).
        appStoreOwed(by: decision, on: snapshot, app: app) + googlePlayOwed(by: decision, app: app)
    }

    private static func appStoreOwed(by decision: LedgerDecision, on snapshot: LedgerSnapshot, app: App)
        -> [StoreObligation]
    {
        var owed: [StoreObligation] = []
        if app.writeBack.appAccountTokens {
            let newest = Dictionary(
                decision.bindingChanges.map { ($0.chain, $0) },
                uniquingKeysWith: { first, second in first.sequence >= second.sequence ? first : second })
            for chain in decision.updatedChains {
                guard let binding = newest[chain.key],
                    chain.transactions.allSatisfy({ $0.transaction.store == .appStore })
                else { continue }
                guard !chain.transactions.contains(where: { $0.transaction.ownershipType == .familyShared }) else {
                    continue
                }
                let latest = chain.transactions.max {
                    ($0.transaction.purchaseDate, $0.transactionID) < ($1.transaction.purchaseDate, $1.transactionID)
                }
                if let latest, names(latest.transaction, binding.to, snapshot) { continue }
                owed.append(
                    .setAppAccountToken(chain: chain.key, bindingSequence: binding.sequence, account: binding.to))
            }
        }
        if app.writeBack.finishTransactions {
            var seen = Set<String>()
            for entry in decision.entries where entry.reason == .purchase {
                guard entry.kind == .grant || entry.kind == .credit,
                    let product = app.product(entry.productID), product.store == .appStore,
                    product.type == .consumable || product.type == .nonConsumable,
                    seen.insert(entry.transactionID).inserted
                else { continue }
                owed.append(
                    .finishTransaction(
                        entry.transactionID,
                        chain: ChainKey(
                            environment: entry.environment, chainID: entry.chainID),
                        account: entry.account))
            }
        }
        return owed
    }

    /// Whether `transaction`'s app account token already names `account`.
    private static func names(_ transaction: Transaction, _ account: AccountID, _ snapshot: LedgerSnapshot) -> Bool {
        guard let token = AccountToken(transaction.accountHint) else { return false }
        if token.rawValue == AccountToken(account.rawValue)?.rawValue { return true }
        if snapshot.accountsByToken[token] == account { return true }
        return snapshot.orders.contains { $0.id.rawValue == token.rawValue && $0.account == account }
    }

    private static func googlePlayOwed(by decision: LedgerDecision, app: App) -> [StoreObligation] {
        let credited = Set(
            decision.entries.filter { $0.kind == .grant || $0.kind == .extend || $0.kind == .credit }
                .map(\.transactionID))
        var owed: [StoreObligation] = []
        var seen = Set<String>()
        for chain in decision.updatedChains {
            for known in chain.transactions {
                let transaction = known.transaction
                guard transaction.store == .googlePlay, let token = transaction.purchaseToken,
                    let account = known.account, credited.contains(known.transactionID),
                    let product = app.product(transaction.productID), seen.insert(token).inserted
                else { continue }
                let kind: Kind =
                    switch product.type {
                    case .autoRenewable: .acknowledgeSubscription
                    case .consumable: .consumeProduct
                    case .nonConsumable, .nonRenewing: .acknowledgeProduct
                    }
                owed.append(
                    StoreObligation(
                        kind: kind, chain: chain.key, transactionID: transaction.transactionID, account: account,
                        payload: .googlePlay(purchaseToken: token, productID: transaction.productID)))
            }
        }
        return owed
    }
}
