/// Everything one apply writes, decided in one call (`Ledger.writes`) from the input and the snapshot read
/// under the chains' locks: the storage layer turns it into rows in one transaction and decides nothing itself.
public struct LedgerWrites: Equatable, Sendable {
    /// The ledger's decision: chains, entries, binding changes, outcomes, orders.
    public var decision: LedgerDecision
    /// Accounts the written rows name that the snapshot does not show to exist yet (an account found by name, or
    /// named by a loaded row, was created by the apply that wrote that row; accounts are never deleted).
    public var newAccounts: Set<AccountID>
    /// The entitlement read model of each updated chain, in `decision.updatedChains` order.
    public var periods: [ChainEntitlementPeriods]
    /// The calls the decision owes the stores once it commits (`StoreObligation.owed`): Apple's as the app's
    /// catalog enables them, the acknowledgement (or consumption) of each Google Play purchase it credited.
    public var obligations: [StoreObligation]
    /// The webhook events the decision raises (their accounts' holdings are added where they are stored).
    public var events: [WebhookEventDraft]
    /// The webhook clock's moments the decision sets (expiries, grace periods' ends).
    public var clockMoments: [WebhookClockMoment]
    /// The account each of the input's transactions is attributed to after the apply, by transaction id.
    public var accountsByTransaction: [String: AccountID]
}

/// A chain's entitlement periods (the read model), with every account that holds or ever held the chain: the
/// only accounts that can have periods of it, so a rewrite replaces those accounts' rows of the chain and no
/// others.
public struct ChainEntitlementPeriods: Hashable, Sendable {
    public var chain: ChainKey
    public var periods: [EntitlementPeriod]
    public var accounts: Set<AccountID>

    public init(of chain: ChainSnapshot, in app: App) {
        self.chain = chain.key
        periods = chain.entitlementPeriods(in: app)
        accounts = chain.accountsEverNamed.union(periods.map(\.account))
    }
}

extension ChainSnapshot {
    /// Every account the chain names: its owner, its ownership history's accounts, its transactions' accounts.
    public var accountsEverNamed: Set<AccountID> {
        var accounts = Set<AccountID>()
        if let owner = header.owner { accounts.insert(owner) }
        for change in bindingChanges {
            accounts.insert(change.to)
            if let from = change.from { accounts.insert(from) }
        }
        for known in transactions { if let account = known.account { accounts.insert(account) } }
        return accounts
    }
}

extension LedgerSnapshot {
    /// Accounts this snapshot shows to be stored already: those found by name, and those its loaded rows name
    /// (each written by an apply that created the account first).
    var storedAccounts: Set<AccountID> {
        var accounts = Set(accountsByToken.values)
        for chain in chains {
            if let owner = chain.header.owner { accounts.insert(owner) }
            for known in chain.transactions { if let account = known.account { accounts.insert(account) } }
            for change in chain.bindingChanges { accounts.insert(change.to) }
        }
        return accounts
    }
}

extension LedgerDecision {
    /// Every account the decision's rows name, and the submitter's.
    func accountsNamed(submitter: AccountID?) -> Set<AccountID> {
        var accounts = Set<AccountID>()
        if let submitter { accounts.insert(submitter) }
        for chain in updatedChains { accounts.formUnion(chain.accountsEverNamed) }
        for entry in entries { accounts.insert(entry.account) }
        return accounts
    }
}

extension Ledger {
    /// Decides `input` against `snapshot` (`Ledger.apply`) and derives everything the apply writes with it: new
    /// accounts, entitlement periods, the calls owed to the stores, webhook events and clock moments, and the account
    /// each of the input's transactions now belongs to. `cause` is what the webhook events name as their cause.
    public static func writes(
        applying input: LedgerInput, to snapshot: LedgerSnapshot, app: App, cause: WebhookEventCause, now: Instant
    ) throws(LedgerError) -> LedgerWrites {
        let decision = try apply(input, to: snapshot, app: app, now: now)
        var accountsByTransaction: [String: AccountID] = [:]
        let wanted = Set(input.transactions.map(\.transactionID))
        // The updated chains win over the loaded ones (the latter are what the chains were before this apply).
        for chain in (decision.updatedChains + snapshot.chains).reversed() {
            for known in chain.transactions where wanted.contains(known.transactionID) {
                accountsByTransaction[known.transactionID] = known.account
            }
        }
        return LedgerWrites(
            decision: decision,
            newAccounts: decision.accountsNamed(submitter: input.submitter).subtracting(snapshot.storedAccounts),
            periods: decision.updatedChains.map { ChainEntitlementPeriods(of: $0, in: app) },
            obligations: StoreObligation.owed(by: decision, on: snapshot, app: app),
            events: WebhookEventDerivation.drafts(
                input: input, cause: cause, before: snapshot.chains, decision: decision, app: app, now: now),
            clockMoments: WebhookClockDerivation.moments(
                before: snapshot.chains, decision: decision, app: app, now: now),
            accountsByTransaction: accountsByTransaction)
    }
}
