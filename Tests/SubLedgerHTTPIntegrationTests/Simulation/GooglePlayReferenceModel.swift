/// The Google Play worlds' reference model: which of the app's accounts holds each Google Play order, and who is
/// entitled, as docs/explanation/ownership.md states the rule (the same rule for both stores) and
/// docs/guides/google-play.md maps Google's purchases onto it: a purchase token's lineage (tokens linked by
/// `linkedPurchaseToken`) is one chain named by its first order id, each order is a transaction, and the token's
/// `obfuscatedExternalAccountId` is the account token. Written for the test in milliseconds and strings; it shares
/// no code with `SubLedgerCore`.
///
/// It is fed one reading per input SubLedger took: a submission of a purchase token (with its submitter) or a
/// notification SubLedger acknowledged (none), each with the orders of the lineage Google stated at that moment.
struct GooglePlayReferenceModel: Sendable {
    enum Policy: String, Sendable, CaseIterable {
        case seedRule = "active_auto_renewer_keeps"
        case transferOnRestore = "latest_submitter_takes"
        case keepFirstOwner = "original_account_keeps"
    }

    /// One order as Google states it: the period it paid for, the obfuscated account id of its token, its void.
    struct Order: Sendable, Hashable {
        var id: String
        var start: Int64
        var end: Int64
        var hint: String?
        var voidedAt: Int64?
    }

    /// What one input told SubLedger about one lineage.
    struct Reading: Sendable {
        var chain: String
        var submitter: String?
        var orders: [Order]
        /// Whether the lineage's newest token read still renews; nil when the input says nothing of it.
        var autoRenews: Bool?
        /// The orders Google's purchase states: the read token's latest, and the newest token's latest when a newer
        /// token replaced it. The reading's other orders are read only when the chain does not hold them yet.
        var stated: [String] = []
    }

    struct Credit: Sendable, Hashable {
        var order: Order
        /// nil while the order waits unclaimed.
        var account: String?
    }

    struct Chain: Sendable {
        var id: String
        var owner: String?
        var credits: [String: Credit] = [:]
        /// The last renewal state known, and when it was read.
        var renewal: (at: Int64, on: Bool)?
    }

    let policy: Policy
    private(set) var chains: [String: Chain] = [:]
    /// Order tokens (what the app set as the obfuscated account id) and the account each was made for.
    private(set) var orderAccounts: [String: String] = [:]
    /// A merged account and the account it went into.
    private(set) var mergedInto: [String: String] = [:]
    private(set) var erased: Set<String> = []

    init(policy: Policy) { self.policy = policy }

    /// The account that `account` is now (following merges).
    func current(_ account: String) -> String {
        var id = account
        for _ in 0..<64 {
            guard let next = mergedInto[id] else { break }
            id = next
        }
        return id
    }

    mutating func recordOrder(token: String, account: String) { orderAccounts[token.lowercased()] = account }

    mutating func merge(from: String, into: String) {
        mergedInto[from] = into
        for key in chains.keys {
            if chains[key]?.owner == from { chains[key]?.owner = into }
            for (id, credit) in chains[key]?.credits ?? [:] where credit.account == from {
                chains[key]?.credits[id]?.account = into
            }
        }
    }

    /// `account` and every id merged into it are erased: what they hold is the pseudonym's, their orders name nobody.
    mutating func erase(_ account: String, pseudonym: String) {
        var gone: Set<String> = [account]
        for alias in mergedInto.keys where current(alias) == account { gone.insert(alias) }
        for key in chains.keys {
            if let owner = chains[key]?.owner, gone.contains(owner) { chains[key]?.owner = pseudonym }
            for (id, credit) in chains[key]?.credits ?? [:] where credit.account.map(gone.contains) == true {
                chains[key]?.credits[id]?.account = pseudonym
            }
        }
        orderAccounts = orderAccounts.filter { !gone.contains(current($0.value)) }
        for alias in gone { mergedInto[alias] = nil }
        erased.formUnion(gone)
    }

    /// Applies one reading, read at `now`, and answers what a submission's answer says of each order it read
    /// (`answers(to:)`); empty for a notification.
    @discardableResult
    mutating func apply(_ reading: Reading, now: Int64) -> [String: String] {
        let spoken = spokenOf(reading)
        applyReading(reading, now: now)
        return answers(of: spoken, in: reading.chain, to: reading.submitter)
    }

    /// The orders a submission's answer speaks of, as the model stands before it is applied
    /// (docs/guides/google-play.md): the orders Google's purchase states, and the reading's other orders that the
    /// chain does not hold yet (read to fill it in).
    func spokenOf(_ reading: Reading) -> [String] {
        let held = chains[reading.chain]?.credits ?? [:]
        return reading.orders.map(\.id).filter { reading.stated.contains($0) || held[$0] == nil }
    }

    /// What a submission's answer says of each of `orders` of `chain` as the model stands (docs/reference/http.md,
    /// "Results and limits"), from the submitter's side: `applied` when the chain is the submitter's (after merges),
    /// `belongs_to_another_account` when another account holds it, `unclaimed` while the order waits for a
    /// submitter. Empty for a notification (no submitter).
    func answers(of orders: [String], in chain: String, to submitter: String?) -> [String: String] {
        guard let submitter = submitter.map(current) else { return [:] }
        var answers: [String: String] = [:]
        for id in orders {
            guard let held = chains[chain], held.credits[id]?.account != nil else {
                answers[id] = "unclaimed"
                continue
            }
            answers[id] = held.owner == submitter ? "applied" : "belongs_to_another_account"
        }
        return answers
    }

    private mutating func applyReading(_ reading: Reading, now: Int64) {
        let before = chains[reading.chain] ?? Chain(id: reading.chain)
        var chain = before
        for order in reading.orders {
            if var held = chain.credits[order.id] {
                // A newer reading states the period's end as Google has it now (a refund or a replacement cuts it);
                // a void, once known, stays.
                held.order.end = order.end
                held.order.voidedAt = held.order.voidedAt ?? order.voidedAt
                chain.credits[order.id] = held
            } else {
                chain.credits[order.id] = Credit(order: order, account: nil)
            }
        }
        let incoming = reading.autoRenews.map { (at: now, on: $0) }
        enum Decision {
            case nothing, ownerTakes
            case claim(String)
            case ownerKeeps
            case transfer(String)
        }
        var decision = Decision.nothing
        if let latest = reading.orders.max(by: { ($0.start, $0.id) < ($1.start, $1.id) }) {
            let named = latest.hint.flatMap { orderAccounts[$0.lowercased()] }.map(current)
            if let claimant = named ?? reading.submitter.map(current) {
                if let owner = chain.owner, owner != claimant {
                    switch policy {
                    case .keepFirstOwner: decision = .ownerKeeps
                    case .transferOnRestore: decision = .transfer(claimant)
                    case .seedRule:
                        decision =
                            Self.activelyRenewing(before: before, after: chain, incoming: incoming, now: now)
                            ? .ownerKeeps : .transfer(claimant)
                    }
                } else {
                    decision = .claim(claimant)
                }
            } else if chain.owner != nil {
                decision = .ownerTakes
            }
        }
        if let incoming, Self.replaces(incoming, chain.renewal) { chain.renewal = incoming }
        switch decision {
        case .claim(let account), .transfer(let account): chain.owner = account
        default: break
        }
        if let owner = chain.owner {
            // Nobody named: only what continues the owner's subscription is the owner's (everything, under
            // keep_first_owner); the rest waits for the account that submits it.
            var waits: Set<String> = []
            if case .ownerTakes = decision, policy != .keepFirstOwner {
                let owners = Set(Self.ownersSide(before: before, after: chain).map(\.order.id))
                waits = Set(
                    chain.credits.values.filter { $0.account == nil && !owners.contains($0.order.id) }.map(\.order.id))
            }
            for (id, credit) in chain.credits where credit.account == nil && !waits.contains(id) {
                chain.credits[id]?.account = owner
            }
        }
        chains[reading.chain] = chain
    }

    /// Renewal state `a` replaces `b` when read later; read at the same instant, the one that does not renew wins.
    static func replaces(_ a: (at: Int64, on: Bool), _ b: (at: Int64, on: Bool)?) -> Bool {
        guard let b else { return true }
        return a.at != b.at ? a.at > b.at : (!a.on && b.on)
    }

    /// The owner's orders (credited before the input) and the new ones that continue them: bought while the owner's
    /// period ran, or at its very end.
    static func ownersSide(before: Chain, after: Chain) -> [Credit] {
        let credited = Set(before.credits.values.filter { $0.account != nil }.map(\.order.id))
        var side = after.credits.values.filter { credited.contains($0.order.id) }
        let rest = after.credits.values.filter { !credited.contains($0.order.id) }.sorted {
            ($0.order.start, $0.order.id) < ($1.order.start, $1.order.id)
        }
        for candidate in rest where runs(side, at: candidate.order.start - 1) || runs(side, at: candidate.order.start) {
            side.append(candidate)
        }
        return side
    }

    /// "Still actively auto-renewing": the renewal state known before the input renews, nothing newer in the input
    /// says otherwise, and the owner's side of the chain runs now.
    static func activelyRenewing(before: Chain, after: Chain, incoming: (at: Int64, on: Bool)?, now: Int64) -> Bool {
        guard let known = before.renewal, known.on else { return false }
        if let incoming, replaces(incoming, known), !incoming.on { return false }
        return runs(ownersSide(before: before, after: after), at: now)
    }

    /// Whether the latest of `credits` started by `t` pays for `t` and was not voided by then.
    static func runs(_ credits: [Credit], at t: Int64) -> Bool {
        guard
            let latest = credits.filter({ $0.order.start <= t }).max(by: {
                ($0.order.start, $0.order.id) < ($1.order.start, $1.order.id)
            })
        else { return false }
        if let voided = latest.order.voidedAt, voided <= t { return false }
        return t < latest.order.end
    }

    /// Whether `account` owns a chain whose credited orders pay for `now`.
    func isEntitled(_ account: String, at now: Int64) -> Bool {
        chains.values.contains { chain in
            chain.owner == account && Self.runs(chain.credits.values.filter { $0.account != nil }, at: now)
        }
    }

    /// Who holds each order and each chain (nil: unclaimed, no owner).
    struct Holders: Sendable, Equatable {
        var transactions: [String: String?] = [:]
        var chains: [String: String?] = [:]
    }

    /// Every order and chain told to SubLedger, with the account holding it.
    var holders: Holders { Holders(transactions: credits, chains: chains.mapValues(\.owner)) }

    /// Every order told to SubLedger and the account the model credits it to (nil: unclaimed).
    var credits: [String: String?] {
        var all: [String: String?] = [:]
        for chain in chains.values {
            for (id, credit) in chain.credits { all[id] = credit.account }
        }
        return all
    }
}
