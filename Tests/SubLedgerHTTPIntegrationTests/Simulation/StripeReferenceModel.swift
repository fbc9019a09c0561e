/// The Stripe worlds' reference model: who holds each Stripe subscription, each account's granted entitlements, and
/// what each account's entitlement read answers, as docs/guides/stripe.md and docs/guides/accounts.md state them.
/// Every purchase goes through SubLedger's checkout, so the order in the subscription's metadata names the buying
/// account: the subscription is that account's, then the account it was merged into, then its pseudonym once erased
/// (the erasure keeps the order, under the pseudonym). Whoever submits its Checkout Session, and whenever Stripe bills
/// it, it stays there: every paid invoice is its holder's.
/// Written for the test in seconds and strings; it shares no code with `SubLedgerCore`.
///
/// It is fed what stripe-sim billed, refunded and lost in disputes (each paid invoice with its period, its charge's
/// refunded amount and a dispute's outcome) and what support did (grants, revocations, merges, erasures).
struct StripeReferenceModel: Sendable {
    /// One paid invoice of a subscription: the period it paid for, its charge and what was given back.
    struct Invoice: Sendable, Hashable {
        var id: String
        var subscription: String
        var start: Int64
        var end: Int64
        var charge: String
        var amount: Int64
        var refunded: Int64 = 0
        var fee: Int64
        /// The bank decided a dispute of the charge for the cardholder.
        var disputeLost = false
        /// Refunded in full, or its charge lost in a dispute: the period is taken back.
        var revoked: Bool { amount > 0 && (refunded >= amount || disputeLost) }
    }

    /// A granted entitlement: from its start to `end` (seconds), unless revoked earlier.
    struct Grant: Sendable, Hashable {
        var id: String
        var account: String
        var end: Int64
        var revokedAt: Int64?
    }

    /// Subscription → the account whose order bought it.
    private(set) var buyers: [String: String] = [:]
    /// Subscriptions in the order they were bought; each one's paid invoices in the order they were paid.
    private(set) var subscriptions: [String] = []
    private(set) var invoices: [String: [Invoice]] = [:]
    private(set) var grants: [Grant] = []
    /// A merged account and the account it went into.
    private(set) var mergedInto: [String: String] = [:]
    /// An erased account (or one merged into it) and its pseudonym.
    private(set) var pseudonyms: [String: String] = [:]

    var erased: Set<String> { Set(pseudonyms.keys) }

    /// Where `account`'s purchases are now: following merges, then the pseudonym once erased.
    func holder(_ account: String) -> String {
        var id = account
        for _ in 0..<64 {
            if let pseudonym = pseudonyms[id] { return pseudonym }
            guard let next = mergedInto[id] else { break }
            id = next
        }
        return id
    }

    mutating func bought(_ subscription: String, by account: String) {
        guard buyers[subscription] == nil else { return }
        buyers[subscription] = account
        subscriptions.append(subscription)
    }

    /// Records a paid invoice, or what a later look at it shows (its refunded amount).
    mutating func paid(_ invoice: Invoice) {
        var list = invoices[invoice.subscription] ?? []
        if let index = list.firstIndex(where: { $0.id == invoice.id }) {
            list[index].refunded = max(list[index].refunded, invoice.refunded)
        } else {
            list.append(invoice)
        }
        invoices[invoice.subscription] = list
    }

    mutating func refunded(charge: String, total: Int64) {
        for (subscription, list) in invoices {
            for index in list.indices where list[index].charge == charge {
                invoices[subscription]?[index].refunded = total
            }
        }
    }

    /// The charge `charge` was lost in a dispute: its invoice's period is taken back (docs/guides/stripe.md).
    mutating func lostDispute(charge: String) {
        for (subscription, list) in invoices {
            for index in list.indices where list[index].charge == charge {
                invoices[subscription]?[index].disputeLost = true
            }
        }
    }

    mutating func granted(_ grant: Grant) { grants.append(grant) }

    mutating func revoked(grant id: String, at now: Int64) {
        for index in grants.indices where grants[index].id == id && grants[index].revokedAt == nil {
            grants[index].revokedAt = now
        }
    }

    /// A merge moves the merged account's purchases, and its grants that have not ended and are not revoked.
    mutating func merge(from: String, into: String, at now: Int64) {
        mergedInto[from] = into
        for index in grants.indices
        where grants[index].account == from && grants[index].revokedAt == nil && now < grants[index].end {
            grants[index].account = into
        }
    }

    /// `account` and every id merged into it are erased: what they hold is the pseudonym's.
    mutating func erase(_ account: String, pseudonym: String) {
        var gone: Set<String> = [account]
        for alias in mergedInto.keys where holder(alias) == account { gone.insert(alias) }
        for id in gone { pseudonyms[id] = pseudonym }
        for index in grants.indices where gone.contains(grants[index].account) { grants[index].account = pseudonym }
    }

    /// The account that holds `subscription` now.
    func holder(ofSubscription subscription: String) -> String? { buyers[subscription].map(holder) }

    /// What a Checkout Session submission by `submitter` answers of each paid invoice of `subscription` (the answer's
    /// transactions, docs/reference/http.md, "Results and limits"): `applied` when the subscription is the submitter's
    /// (after merges), `belongs_to_another_account` when another account, or an erased one's pseudonym, holds it. The
    /// order names the holder, so nothing waits unclaimed, and a submission moves nothing: the answer does not depend on
    /// what was submitted before.
    func answers(subscription: String, submitter: String) -> [String: String] {
        let result =
            holder(ofSubscription: subscription) == holder(submitter) ? "applied" : "belongs_to_another_account"
        var answers: [String: String] = [:]
        for invoice in invoices[subscription] ?? [] { answers[invoice.id] = result }
        return answers
    }

    /// Whether `account` may read `pro` at `now`: it holds a subscription with a paid invoice for `now` not refunded
    /// in full, or a grant that runs at `now`.
    func isEntitled(_ account: String, at now: Int64) -> Bool {
        for subscription in subscriptions where holder(ofSubscription: subscription) == account {
            if (invoices[subscription] ?? []).contains(where: { !$0.revoked && $0.start <= now && now < $0.end }) {
                return true
            }
        }
        return grants.contains { $0.account == account && $0.revokedAt == nil && now < $0.end }
    }

    /// The revenue Stripe's records give, in cents: what was charged, given back, and kept as Stripe's fee.
    var revenue: (sales: Int, gross: Int64, refunds: Int64, fees: Int64) {
        let all = invoices.values.flatMap { $0 }.filter { $0.amount > 0 }
        return (
            all.count, all.reduce(0) { $0 + $1.amount }, all.reduce(0) { $0 + $1.refunded },
            all.reduce(0) { $0 + $1.fee }
        )
    }
}
