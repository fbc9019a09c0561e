/// The time-driven events: at the end of a chain's access (its period, or its grace period), if the access
/// really ended then, `entitlement.expired` (and, for a grace period, `subscription.billing_issue` with
/// status `grace_period_ended`).
public enum WebhookClockDerivation {
    /// What the clock does with one due moment.
    public struct Verdict: Sendable, Equatable {
        /// The events of the moment (none when access did not end then: a renewal came first).
        public var drafts: [WebhookEventDraft]
        /// The chain's next moment, when it still grants access after this one.
        public var next: Instant?
    }

    /// When `chain` stops granting access, as known at `instant`; `nil` when it does not grant access or
    /// never ends (a non-consumable), or when it has no owner to tell.
    public static func accessEnd(of chain: ChainSnapshot, at instant: Instant, app: App) -> Instant? {
        guard chain.header.owner != nil else { return nil }
        return Ledger.entitlements(of: chain, at: instant, app: app).compactMap(\.accessEndsAt).max()
    }

    /// The moments an apply moves: each updated chain whose end of access (at `now`) differs from before.
    public static func moments(
        before: [ChainSnapshot], decision: LedgerDecision, app: App, now: Instant
    ) -> [WebhookClockMoment] {
        let previous = Dictionary(before.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        return decision.updatedChains.compactMap { chain in
            guard let end = accessEnd(of: chain, at: now, app: app),
                end != previous[chain.key].flatMap({ accessEnd(of: $0, at: now, app: app) })
            else { return nil }
            return WebhookClockMoment(chain: chain.key, dueAt: end)
        }
    }

    /// The verdict on the moment `moment` of `chain`, evaluated at `now` (at or after the moment) with
    /// everything known by then. The event is written when, with those facts, the chain does not grant
    /// access at the moment because its time ran out (`expired`, or `billing_retry` once a grace period is
    /// over): a renewal that came first means access goes on; a refund, a family revocation or an upgrade
    /// has its own event. The facts are Apple's latest (a renewal state replaces the one before), so the
    /// state just before the moment is not asked: a grace period that Apple has since closed still ends here.
    public static func verdict(chain: ChainSnapshot, moment: Instant, now: Instant, app: App) -> Verdict {
        let justBefore = moment.adding(milliseconds: -1)
        let stateAt = chain.state(at: moment, in: app)
        let timeRanOut: Bool =
            switch stateAt {
            case .expired, .billingRetry: true
            case .active, .gracePeriod, .revoked, .upgradedAway: false
            }
        var drafts: [WebhookEventDraft] = []
        if timeRanOut, let account = chain.owner(at: justBefore), chain.owner(at: moment) == account,
            let latest = chain.latestTransaction(at: justBefore)
        {
            let key = chain.key
            let product = app.product(latest.transaction.productID)
            // The moment is after the paid period's end: it is the end of a grace period.
            let graceEnded = chain.periodEnd(of: latest, in: app).map { moment > $0 } ?? false
            let reason: String =
                switch stateAt {
                case .expired(let reason): reason.name
                default: stateAt.name
                }
            let common: [EventJSON.Member] = [
                .init("product_id", .string(latest.transaction.productID)),
                .init("original_transaction_id", .string(key.chainID)),
            ]
            drafts.append(
                WebhookEventDraft(
                    type: .entitlementExpired, environment: key.environment, account: account, occurredAt: moment,
                    subject: "\(key.chainID)|\(moment.millisecondsSince1970)",
                    data: [
                        .init("reason", .string(reason)),
                        .init("grace_period_ended", .bool(graceEnded)),
                        .init("expired_at", .time(moment)),
                        .init("entitlement_ids", .array((product?.entitlementIDs ?? []).map(EventJSON.string))),
                        .init("transaction_id", .string(latest.transactionID)),
                    ] + common))
            if graceEnded {
                drafts.append(
                    WebhookEventDraft(
                        type: .billingIssue, environment: key.environment, account: account, occurredAt: moment,
                        subject: "\(key.chainID)|grace_period_ended|\(moment.millisecondsSince1970)",
                        data: [
                            .init("status", .string("grace_period_ended")),
                            .init("grace_period_expires_at", .time(moment)),
                        ] + common))
            }
        }
        let next = accessEnd(of: chain, at: max(now, moment), app: app).flatMap { $0 > moment ? $0 : nil }
        return Verdict(drafts: drafts, next: next)
    }
}
