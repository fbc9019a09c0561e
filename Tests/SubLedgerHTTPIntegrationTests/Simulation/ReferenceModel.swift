/// The customer-life simulation's reference model: which of the app's accounts holds each App Store purchase, and
/// who is entitled, as docs/explanation/ownership.md states the rule. Written from that page, in the test's own
/// terms (milliseconds, strings), sharing no code with SubLedger's decision (`SubLedgerCore`): where the two
/// disagree, one of them is wrong, and the simulation says which step showed it.
///
/// It is fed exactly what SubLedger was told, in the order SubLedger was told it: each delivered notification
/// (decoded from the payload the simulator posted) and each submitted receipt (the Apple ID's transactions as the
/// simulator held them at that moment).
struct ReferenceModel: Sendable {
    enum Policy: String, Sendable, CaseIterable {
        case seedRule = "active_auto_renewer_keeps"
        case transferOnRestore = "latest_submitter_takes"
        case keepFirstOwner = "original_account_keeps"
    }

    /// One transaction as an input carried it.
    struct Arrival: Sendable, Hashable {
        var id: String
        var chain: String
        var purchase: Int64
        var expires: Int64
        var token: String?
        /// The revocation the input stated (Apple's `revocationDate`, a receipt's `cancellation_date_ms`); in a
        /// `Held`, the revocation in force once every observation is weighed (`Held.observe`).
        var revokedAt: Int64?
        var product = "pro.monthly"
        /// When Apple stated this version: a JWS's `signedDate`, a receipt's `request_date_ms`.
        var observedAt: Int64 = 0
        /// The share refunded, thousandths of a percent, where a signed statement gives it (a receipt never does).
        var revocationPercentage: Int?
    }

    /// What an input says of a chain's auto-renewal, and when it was observed.
    struct RenewalFact: Sendable, Hashable {
        var observedAt: Int64
        var willAutoRenew: Bool
    }

    /// One input: a submission (`submitter` set) or a notification.
    struct Input: Sendable {
        var submitter: String?
        var arrivals: [Arrival]
        var renewals: [String: RenewalFact]
    }

    struct Held: Sendable, Hashable {
        var arrival: Arrival
        /// The account it is credited to; nil while unclaimed.
        var account: String?
        /// The revocation date seen, and the latest observation showing it.
        var revocation: Int64?
        var revocationSeenAt: Int64?
        /// The latest observation showing no revocation.
        var cleanSeenAt: Int64?
        /// The refund's share as last stated by a signed statement (docs/explanation/revenue.md: once stated, it
        /// stays).
        var percentage: Int?
        var percentageSeenAt: Int64?

        init(arrival: Arrival, account: String?) {
            self.arrival = arrival
            self.account = account
            self.arrival.revokedAt = nil
            observe(arrival)
        }

        /// Weighs one more observation, as docs/explanation/ownership.md ("Revocations") states: a revocation date once
        /// seen stays; it is reversed exactly when a later observation shows the transaction without one.
        mutating func observe(_ version: Arrival) {
            if let date = version.revokedAt {
                revocation = date
                revocationSeenAt = max(revocationSeenAt ?? version.observedAt, version.observedAt)
                if let share = version.revocationPercentage, version.observedAt >= (percentageSeenAt ?? .min) {
                    percentage = share
                    percentageSeenAt = version.observedAt
                }
            } else {
                cleanSeenAt = max(cleanSeenAt ?? version.observedAt, version.observedAt)
            }
            let reversed = cleanSeenAt.map { clean in revocationSeenAt.map { clean > $0 } ?? false } ?? false
            arrival.revokedAt = reversed ? nil : revocation
        }
    }

    struct Chain: Sendable {
        var id: String
        var owner: String?
        var transactions: [String: Held] = [:]
        var renewal: RenewalFact?
    }

    let policy: Policy
    private(set) var chains: [String: Chain] = [:]
    /// Order tokens (`app_account_token`) and the account each order was made for.
    private(set) var orders: [String: String] = [:]
    /// Merged account → the account it was merged into.
    private(set) var aliases: [String: String] = [:]

    init(policy: Policy) { self.policy = policy }

    /// The account `account` stands for now: itself, or the account it was merged into (transitively).
    func canonical(_ account: String) -> String {
        var current = account
        var steps = 0
        while let next = aliases[current], steps < 64 {
            current = next
            steps += 1
        }
        return current
    }

    mutating func recordOrder(token: String, account: String) { orders[token.lowercased()] = account }

    /// `from` merged into `into`: every chain and purchase of `from` is `into`'s from now on.
    mutating func merge(from: String, into: String) {
        aliases[from] = into
        for id in chains.keys {
            if chains[id]?.owner == from { chains[id]?.owner = into }
            for (transactionID, held) in chains[id]?.transactions ?? [:] where held.account == from {
                chains[id]?.transactions[transactionID]?.account = into
            }
        }
    }

    /// `account` erased: it and every id merged into it are gone; what they held is held by `pseudonym` (the aliases
    /// hold nothing: a merge moved it all), and their orders name nobody any more.
    mutating func erase(_ account: String, pseudonym: String) {
        let gone = Set(aliases.keys.filter { canonical($0) == account }).union([account])
        for id in chains.keys {
            if let owner = chains[id]?.owner, gone.contains(owner) { chains[id]?.owner = pseudonym }
            for (transactionID, held) in chains[id]?.transactions ?? [:] {
                if let holder = held.account, gone.contains(holder) {
                    chains[id]?.transactions[transactionID]?.account = pseudonym
                }
            }
        }
        for (token, orderAccount) in orders where gone.contains(canonical(orderAccount)) { orders[token] = nil }
        for alias in gone { aliases[alias] = nil }
        erased.formUnion(gone)
    }

    /// Ids erased so far.
    private(set) var erased: Set<String> = []

    /// Applies one input at `now`, chain by chain, and answers what a submission's answer says of each of its
    /// transactions (docs/reference/http.md, "Results and limits"), from the submitter's side: `applied` when the
    /// chain is the submitter's once the input is applied (now or before), `belongs_to_another_account` when another
    /// account holds it, `unclaimed` while the transaction waits for a submitter. Empty for a notification.
    @discardableResult
    mutating func apply(_ input: Input, now: Int64) -> [String: String] {
        let byChain = Dictionary(grouping: input.arrivals, by: \.chain)
        for id in Set(byChain.keys).union(input.renewals.keys).sorted() {
            applyToChain(
                id, arrivals: byChain[id] ?? [], renewal: input.renewals[id], submitter: input.submitter, now: now)
        }
        guard let submitter = input.submitter.map(canonical) else { return [:] }
        var answers: [String: String] = [:]
        for arrival in input.arrivals {
            guard let chain = chains[arrival.chain], chain.transactions[arrival.id]?.account != nil else {
                answers[arrival.id] = "unclaimed"
                continue
            }
            answers[arrival.id] = chain.owner == submitter ? "applied" : "belongs_to_another_account"
        }
        return answers
    }

    private enum Resolution {
        case none, toOwner
        case claim(String)
        case ownerKeeps
        case transfer(String)
    }

    private mutating func applyToChain(
        _ id: String, arrivals: [Arrival], renewal incoming: RenewalFact?, submitter: String?, now: Int64
    ) {
        let before = chains[id] ?? Chain(id: id)
        var chain = before
        for arrival in arrivals {
            if var held = chain.transactions[arrival.id] {
                held.observe(arrival)
                chain.transactions[arrival.id] = held
            } else {
                chain.transactions[arrival.id] = Held(arrival: arrival, account: nil)
            }
        }
        var resolution = Resolution.none
        if let latest = arrivals.max(by: { ($0.purchase, $0.id) < ($1.purchase, $1.id) }) {
            // A token naming an order wins over the submitter; an input nobody submitted names nobody else.
            let claimant = latest.token.flatMap { orders[$0.lowercased()] }.map(canonical) ?? submitter.map(canonical)
            if let claimant {
                if let owner = chain.owner, owner != claimant {
                    switch policy {
                    case .keepFirstOwner: resolution = .ownerKeeps
                    case .transferOnRestore: resolution = .transfer(claimant)
                    case .seedRule:
                        resolution =
                            Self.ownerIsActivelyAutoRenewing(
                                before: before, merged: chain, incoming: incoming, now: now)
                            ? .ownerKeeps : .transfer(claimant)
                    }
                } else {
                    resolution = .claim(claimant)
                }
            } else if chain.owner != nil {
                resolution = .toOwner
            }
        }
        if let incoming, Self.isNewer(incoming, than: chain.renewal) { chain.renewal = incoming }
        switch resolution {
        case .claim(let account), .transfer(let account): chain.owner = account
        case .none, .toOwner, .ownerKeeps: break
        }
        if let owner = chain.owner {
            var waiting: Set<String> = []
            var claimed = false
            switch resolution {
            case .claim, .transfer, .ownerKeeps: claimed = true
            case .none, .toOwner: break
            }
            if !claimed, policy != .keepFirstOwner {
                let held = Set(Self.heldByOwner(before: before, merged: chain).map(\.arrival.id))
                waiting = Set(
                    chain.transactions.values.filter { $0.account == nil && !held.contains($0.arrival.id) }.map(
                        \.arrival.id))
            }
            for (transactionID, held) in chain.transactions
            where held.account == nil && !waiting.contains(transactionID) {
                chain.transactions[transactionID]?.account = owner
            }
        }
        chains[id] = chain
    }

    /// Renewal info `a` replaces `b` when observed later; at the same instant, the state that does not renew wins.
    static func isNewer(_ a: RenewalFact, than b: RenewalFact?) -> Bool {
        guard let b else { return true }
        if a.observedAt != b.observedAt { return a.observedAt > b.observedAt }
        return !a.willAutoRenew && b.willAutoRenew
    }

    /// The owner's side of the chain: what is credited to an account, plus what continues it (bought while it ran,
    /// or at the very end of a period).
    static func heldByOwner(before: Chain, merged: Chain) -> [Held] {
        let credited = Set(before.transactions.values.filter { $0.account != nil }.map(\.arrival.id))
        var view = merged.transactions.values.filter { credited.contains($0.arrival.id) }
        let others = merged.transactions.values.filter { !credited.contains($0.arrival.id) }.sorted {
            ($0.arrival.purchase, $0.arrival.id) < ($1.arrival.purchase, $1.arrival.id)
        }
        for candidate in others {
            let bought = candidate.arrival.purchase
            if isRunning(view, at: bought - 1) || isRunning(view, at: bought) { view.append(candidate) }
        }
        return view
    }

    /// Docs' "still actively auto-renewing": the last renewal state known before the input renews (and none newer in
    /// the input says otherwise), and the owner's side of the chain runs now.
    static func ownerIsActivelyAutoRenewing(before: Chain, merged: Chain, incoming: RenewalFact?, now: Int64) -> Bool {
        guard let stored = before.renewal, stored.willAutoRenew else { return false }
        if let incoming, isNewer(incoming, than: stored), !incoming.willAutoRenew { return false }
        return isRunning(heldByOwner(before: before, merged: merged), at: now)
    }

    /// Whether the latest of `transactions` bought at or before `t` is paid for at `t` and not refunded by then.
    static func isRunning(_ transactions: [Held], at t: Int64) -> Bool {
        let latest = transactions.filter { $0.arrival.purchase <= t }.max {
            ($0.arrival.purchase, $0.arrival.id) < ($1.arrival.purchase, $1.arrival.id)
        }
        guard let latest else { return false }
        if let revoked = latest.arrival.revokedAt, revoked <= t { return false }
        return t < latest.arrival.expires
    }

    /// Whether `account` is entitled at `now`: it owns a chain whose credited purchases run then.
    func isEntitled(_ account: String, at now: Int64) -> Bool {
        chains.values.contains { chain in
            chain.owner == account && Self.isRunning(chain.transactions.values.filter { $0.account != nil }, at: now)
        }
    }

    /// Who holds each transaction and each chain.
    struct Holders: Sendable, Equatable {
        var transactions: [String: String?] = [:]
        var chains: [String: String?] = [:]
    }

    /// Every transaction and chain told to SubLedger, with the account holding it (nil: unclaimed, no owner).
    var holders: Holders {
        Holders(transactions: credits, chains: chains.mapValues(\.owner))
    }

    /// Every transaction told to SubLedger, with the account the model credits it to (nil: unclaimed).
    var credits: [String: String?] {
        var result: [String: String?] = [:]
        for chain in chains.values {
            for (id, held) in chain.transactions { result[id] = held.account }
        }
        return result
    }
}
