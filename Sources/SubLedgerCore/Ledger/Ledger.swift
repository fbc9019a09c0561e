/// The ledger's pure operations: apply one input to explicit state and get a decision back.
public enum Ledger {
    /// Applies `input` to the state in `snapshot` for `app`, evaluating time-dependent rules at `now`.
    ///
    /// Per chain the input touches (in `ChainKey` order):
    /// 1. the input's versions of its transactions are merged into the stored ones (newest observation wins;
    ///    revocations and their reversals are kept as facts) and the newest renewal info is noted;
    /// 2. the input is attributed (`Attribution`) through the chain's latest arriving transaction
    ///    (`TransactionOrder`);
    /// 3. `OwnershipRule` decides, with "still actively auto-renewing" evaluated on the chain as stored plus
    ///    the input's continuing renewals (see `OwnershipRule.ownerIsActivelyAutoRenewing`);
    /// 4. the renewal info is stored if newer, the owner changes if decided, and every unclaimed
    ///    transaction of an owned chain goes to its owner, except that an input nobody submitted leaves a purchase
    ///    made after the owner's subscription lapsed waiting for its submitter (`waitingForASubmitter`);
    /// 5. entries are the derived entries that were not derived before, plus transfer entries.
    /// Nothing in the result depends on the wall clock or on anything but the arguments.
    public static func apply(
        _ input: LedgerInput,
        to snapshot: LedgerSnapshot,
        app: App,
        now: Instant
    ) throws(LedgerError) -> LedgerDecision {
        guard input.bundleID == app.bundleID else { throw LedgerError(code: .appMismatch, subject: input.bundleID) }
        guard app.validationErrors.isEmpty else { throw LedgerError(code: .invalidApp, subject: app.bundleID) }
        guard app.environments.contains(input.environment) else {
            throw LedgerError(code: .environmentNotAllowed, subject: input.environment.rawValue)
        }
        guard input.transactions.count + input.renewalInfo.count <= LedgerInput.maximumItems else {
            throw LedgerError(code: .inputTooLarge, subject: input.bundleID)
        }
        var application = InputApplication(input: input, snapshot: snapshot, app: app, now: now)
        return application.run()
    }
}

/// The working state of one `Ledger.apply` call.
private struct InputApplication {
    let input: LedgerInput
    let app: App
    let now: Instant
    let accountsByToken: [AccountToken: AccountID]
    var chains: [ChainKey: ChainSnapshot]
    var orders: [OrderID: Order]
    var decision = LedgerDecision()

    init(input: LedgerInput, snapshot: LedgerSnapshot, app: App, now: Instant) {
        self.input = input
        self.app = app
        self.now = now
        self.accountsByToken = snapshot.accountsByToken
        self.chains = Dictionary(snapshot.chains.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        self.orders = Dictionary(snapshot.orders.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    }

    /// A transaction version as it arrived, with its observation time.
    private struct Arrival {
        var transaction: Transaction
        var observedAt: Instant?
    }

    mutating func run() -> LedgerDecision {
        var arrivals: [ChainKey: [String: Arrival]] = [:]
        var ignored: [String: TransactionOutcome] = [:]
        for transaction in input.transactions {
            if let reason = IgnoredTransaction.reason(for: transaction, app: app, environment: input.environment) {
                ignored[transaction.transactionID] =
                    ignored[transaction.transactionID] ?? outcome(transaction, .ignored(reason))
                continue
            }
            let arrival = Arrival(transaction: transaction, observedAt: transaction.signedDate ?? input.observedAt)
            let key = transaction.chainKey
            if let earlier = arrivals[key]?[transaction.transactionID] {
                let newest = TransactionVersion.newer(
                    (earlier.transaction, earlier.observedAt), (arrival.transaction, arrival.observedAt))
                arrivals[key]?[transaction.transactionID] = Arrival(transaction: newest.0, observedAt: newest.1)
            } else {
                arrivals[key, default: [:]][transaction.transactionID] = arrival
            }
        }
        var renewals: [ChainKey: [RenewalInfo]] = [:]
        for info in input.renewalInfo {
            if info.environment != input.environment {
                decision.renewalInfoOutcomes.append(
                    RenewalInfoOutcome(
                        chain: info.chainKey, observedAt: info.observedAt,
                        result: .ignored(.environmentMismatch)))
            } else if app.product(info.productID) == nil {
                decision.renewalInfoOutcomes.append(
                    RenewalInfoOutcome(
                        chain: info.chainKey, observedAt: info.observedAt,
                        result: .ignored(.unknownProduct)))
            } else {
                renewals[info.chainKey, default: []].append(info)
            }
        }
        for key in Set(arrivals.keys).union(renewals.keys).sorted() {
            let unordered = (arrivals[key] ?? [:]).values
            let order = TransactionOrder(
                (chains[key]?.transactions.map(\.transaction) ?? []) + unordered.map(\.transaction))
            let chainArrivals = unordered.sorted { order.precedes($0.transaction, $1.transaction) }
            applyToChain(key, arrivals: chainArrivals, renewals: renewals[key] ?? [])
        }
        decision.transactionOutcomes += ignored.keys.sorted().compactMap { ignored[$0] }
        return decision
    }

    private mutating func applyToChain(_ key: ChainKey, arrivals: [Arrival], renewals: [RenewalInfo]) {
        let productID = arrivals.last?.transaction.productID ?? renewals.first?.productID
        guard let productID, let product = app.product(productID) else { return }
        let before =
            chains[key]
            ?? ChainSnapshot(
                header: SubscriptionChain(
                    key: key, bundleID: app.bundleID, productType: product.type, productID: productID))
        var chain = before

        // 1. Merge what the store says about each transaction.
        var changed: Set<String> = []
        for arrival in arrivals {
            let id = arrival.transaction.transactionID
            if let index = chain.transactions.firstIndex(where: { $0.transactionID == id }) {
                if chain.transactions[index].merge(arrival.transaction, observedAt: arrival.observedAt) {
                    changed.insert(id)
                }
            } else {
                chain.transactions.append(KnownTransaction(first: arrival.transaction, observedAt: arrival.observedAt))
                changed.insert(id)
            }
        }
        chain.sortTransactions()
        let incomingRenewal = RenewalInfoVersion.newest(renewals)

        // 2–3. Attribute the input and apply the ownership rule, with renewal info as known before the input.
        var attribution = Attribution.unknown
        var resolution: OwnershipRule.Resolution?
        if let latest = arrivals.last?.transaction {
            attribution = Attribution.resolve(
                latest, submitter: input.submitter, accountsByToken: accountsByToken, ordersByID: orders, app: app)
            let merged = chain
            resolution = OwnershipRule.resolve(
                owner: chain.header.owner,
                claimant: attribution.account,
                productType: chain.header.productType,
                policy: app.ownershipPolicy
            ) {
                OwnershipRule.ownerIsActivelyAutoRenewing(
                    before: before, merged: merged, incomingRenewalInfo: incomingRenewal, at: now, in: app)
            }
        }

        // 4. Store renewal info, move ownership, hand unclaimed transactions to the owner.
        for info in renewals {
            let applies = info == incomingRenewal && RenewalInfoVersion.isNewer(info, than: chain.header.renewalInfo)
            decision.renewalInfoOutcomes.append(
                RenewalInfoOutcome(chain: key, observedAt: info.observedAt, result: applies ? .applied : .stale))
        }
        if let incomingRenewal, RenewalInfoVersion.isNewer(incomingRenewal, than: chain.header.renewalInfo) {
            chain.header.renewalInfo = incomingRenewal.keepingPrice(of: chain.header.renewalInfo)
        }
        var transfer: (change: BindingChange, from: AccountID, trigger: String)?
        switch resolution {
        case .firstClaim(let claimant):
            record(
                BindingChange(
                    chain: key, sequence: chain.bindingChanges.count, from: nil, to: claimant,
                    reason: .firstClaim, at: now, transactionID: nil),
                on: &chain)
        case .transfer(let from, let to, let reason):
            let trigger = arrivals.last?.transaction.transactionID ?? ""
            let change = BindingChange(
                chain: key, sequence: chain.bindingChanges.count, from: from, to: to, reason: reason, at: now,
                transactionID: trigger)
            record(change, on: &chain)
            transfer = (change, from, trigger)
        case .unattributed, .toOwner, .sameOwner, .ownerKeeps, nil:
            break
        }
        var newlyAssigned: [Transaction] = []
        if let owner = chain.header.owner {
            let waiting = waitingForASubmitter(resolution, before: before, merged: chain)
            for index in chain.transactions.indices
            where chain.transactions[index].account == nil
                && !waiting.contains(chain.transactions[index].transactionID)
            {
                chain.transactions[index].account = owner
                newlyAssigned.append(chain.transactions[index].transaction)
                changed.insert(chain.transactions[index].transactionID)
            }
        }
        refreshChainRow(&chain)
        let transferEntries =
            transfer.map {
                LedgerEntryDerivation.transferEntries(
                    for: $0.change, from: $0.from, transactionID: $0.trigger, on: chain, app: app)
            } ?? []

        // 5. Entries: what is derivable now and was not before, plus the transfer.
        let derivedBefore = LedgerEntryDerivation.entries(on: before, app: app)
        let derivedAfter = LedgerEntryDerivation.entries(on: chain, app: app)
        decision.entries += derivedAfter.keys.sorted().filter { derivedBefore[$0] == nil }.compactMap {
            derivedAfter[$0]
        }
        decision.entries += transferEntries

        fulfilOrders(for: newlyAssigned, on: chain)
        let unassigned = Set(chain.transactions.filter { $0.account == nil }.map(\.transactionID))
        for arrival in arrivals {
            let transaction = arrival.transaction
            decision.transactionOutcomes.append(
                outcome(
                    transaction,
                    result(
                        for: unassigned.contains(transaction.transactionID)
                            ? .unattributed : resolution ?? .unattributed,
                        attribution: attribution,
                        changed: changed.contains(transaction.transactionID)
                            || resolution.map(Self.movesOwnership) == true)))
        }
        chains[key] = chain
        decision.updatedChains.append(chain)
    }

    /// The unclaimed transactions of an owned chain that an input nobody submitted leaves unclaimed: under a
    /// policy that lets another account take the chain, those that do not continue the owner's subscription
    /// (`OwnershipRule.heldByOwner`), a purchase made on the same store account after it lapsed. They wait for the
    /// account that submits them, and the ownership rule decides then. Every other resolution hands them all over:
    /// a claimant takes what was waiting, and an owner who keeps the chain against one keeps it whole.
    private func waitingForASubmitter(
        _ resolution: OwnershipRule.Resolution?,
        before: ChainSnapshot,
        merged: ChainSnapshot
    ) -> Set<String> {
        switch resolution {
        case .toOwner, nil: break  // nil: the input carried only renewal info, and claimed nothing
        case .unattributed, .firstClaim, .sameOwner, .ownerKeeps, .transfer: return []
        }
        guard before.header.productType == .autoRenewable, !app.ownershipPolicy.ownerTakesPurchasesAfterLapse
        else { return [] }
        let held = Set(
            OwnershipRule.heldByOwner(before: before, merged: merged, in: app).transactions.map(\.transactionID))
        return Set(
            merged.transactions.filter { $0.account == nil && !held.contains($0.transactionID) }.map(\.transactionID))
    }

    private mutating func record(_ change: BindingChange, on chain: inout ChainSnapshot) {
        chain.bindingChanges.append(change)
        chain.header.owner = change.to
        decision.bindingChanges.append(change)
    }

    /// Recomputes the chain row's derived columns from its credited transactions (`ChainSnapshot.isCredited`).
    private func refreshChainRow(_ chain: inout ChainSnapshot) {
        let credited = chain.transactions.filter(chain.isCredited)
        if let latest = credited.last?.transaction {
            chain.header.productID = latest.productID
        } else if let renewal = chain.header.renewalInfo {
            chain.header.productID = renewal.productID
        }
        let product = app.product(chain.header.productID)
        chain.header.subscriptionGroupID =
            product?.subscriptionGroupID ?? credited.last?.transaction.subscriptionGroupID
        // Each transaction's period as it really ends: an upgraded one's is cut at the upgrade, so a yearly
        // period left for a monthly one does not keep the chain row active past the successor's expiry.
        chain.header.latestExpiry = credited.compactMap { chain.periodEnd(of: $0, in: app) }.max()
    }

    private mutating func fulfilOrders(for transactions: [Transaction], on chain: ChainSnapshot) {
        guard let owner = chain.header.owner else { return }
        for transaction in transactions {
            guard
                let id = OrderMatching.orderFulfilled(
                    by: transaction, grantedTo: owner, on: chain, submitter: input.submitter, ordersByID: orders,
                    app: app),
                let order = orders[id]
            else { continue }
            let fulfilled = order.fulfilled(by: transaction.transactionID)
            orders[id] = fulfilled
            decision.fulfilledOrders.removeAll { $0.id == id }
            decision.fulfilledOrders.append(fulfilled)
        }
    }

    private static func movesOwnership(_ resolution: OwnershipRule.Resolution) -> Bool {
        switch resolution {
        case .firstClaim, .transfer: true
        case .unattributed, .toOwner, .sameOwner, .ownerKeeps: false
        }
    }

    /// The outcome told to the submitter: never who else holds the chain.
    private func result(
        for resolution: OwnershipRule.Resolution,
        attribution: Attribution,
        changed: Bool
    ) -> TransactionOutcome.Result {
        guard let recipient = resolution.recipient else { return attribution == .deferred ? .deferred : .unclaimed }
        if let submitter = input.submitter, submitter != recipient { return .belongsToAnotherAccount }
        return changed ? .applied(to: recipient) : .duplicate
    }

    private func outcome(_ transaction: Transaction, _ result: TransactionOutcome.Result) -> TransactionOutcome {
        TransactionOutcome(
            environment: transaction.environment,
            transactionID: transaction.transactionID,
            chainID: transaction.chainID,
            productID: transaction.productID,
            result: result
        )
    }
}
