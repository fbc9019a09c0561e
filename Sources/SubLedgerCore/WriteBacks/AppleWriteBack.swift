/// A call to the App Store Server API that one apply's decision owes Apple, for an app whose catalog enables it
/// (`WriteBackPolicy`). The storage layer records it in the apply's transaction; `subledger poll` sends it after
/// the commit, so it is sent exactly when its cause was recorded, and retried until Apple answers.
public struct AppleWriteBack: Hashable, Sendable {
    public enum Kind: String, Hashable, Sendable, CaseIterable {
        /// Set App Account Token on the chain's original transaction, naming `account`.
        case setAppAccountToken = "set_app_account_token"
        /// Finish Transaction: the transaction's content was delivered to `account`.
        case finishTransaction = "finish_transaction"
    }

    public var kind: Kind
    public var environment: StoreEnvironment
    /// The chain's original transaction id (`setAppAccountToken`) or the credited transaction's id.
    public var transactionID: String
    /// The binding's position in the chain's history (`setAppAccountToken`); 0 for `finishTransaction`. With the
    /// kind and the transaction it makes the write-back's identity: a repeat of the apply records nothing new.
    public var sequence: Int
    /// The account the chain was bound to, or the transaction was credited to.
    public var account: AccountID

    public init(
        kind: Kind, environment: StoreEnvironment, transactionID: String, sequence: Int, account: AccountID
    ) {
        self.kind = kind
        self.environment = environment
        self.transactionID = transactionID
        self.sequence = sequence
        self.account = account
    }

    /// What `decision` (taken on `snapshot`) owes Apple under `app`'s policy, in a stable order:
    /// - for each chain bound to an account by the decision (its newest binding): Set App Account Token, unless
    ///   the chain is shared through Family Sharing (Apple refuses those) or its newest transaction's token already
    ///   names the account (by the account's id, a token the storage layer resolved to it, or one of its orders);
    /// - for each consumable or non-consumable purchase credited by the decision: Finish Transaction.
    public static func owed(by decision: LedgerDecision, on snapshot: LedgerSnapshot, app: App) -> [AppleWriteBack] {
        var owed: [AppleWriteBack] = []
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
                    AppleWriteBack(
                        kind: .setAppAccountToken, environment: chain.key.environment,
                        transactionID: chain.key.originalTransactionID, sequence: binding.sequence, account: binding.to)
                )
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
                    AppleWriteBack(
                        kind: .finishTransaction, environment: entry.environment, transactionID: entry.transactionID,
                        sequence: 0, account: entry.account))
            }
        }
        return owed
    }

    /// Whether `transaction`'s app account token already names `account`.
    private static func names(_ transaction: Transaction, _ account: AccountID, _ snapshot: LedgerSnapshot) -> Bool {
        guard let token = AccountToken(transaction.appAccountToken) else { return false }
        if token.rawValue == AccountToken(account.rawValue)?.rawValue { return true }
        if snapshot.accountsByToken[token] == account { return true }
        return snapshot.orders.contains { $0.id.rawValue == token.rawValue && $0.account == account }
    }
}
