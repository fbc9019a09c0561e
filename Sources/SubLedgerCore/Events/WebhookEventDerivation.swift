/// From what one apply decided to the events it causes (docs/guides/webhooks.md, "Event catalog").
///
/// A pure function of the chains before the input, the decision, the cause and `now`. A replayed input
/// decides nothing new (no new entry, no renewal state change, no binding change), so it derives nothing;
/// the idempotency keys catch whatever else repeats.
public enum WebhookEventDerivation {
    /// The events of one apply, in a stable order, each once.
    public static func drafts(
        input: LedgerInput, cause: WebhookEventCause, before: [ChainSnapshot], decision: LedgerDecision, app: App,
        now: Instant
    ) -> [WebhookEventDraft] {
        let previous = Dictionary(before.map { ($0.key, $0) }, uniquingKeysWith: { first, _ in first })
        var drafts: [WebhookEventDraft] = []
        for entry in decision.entries {
            drafts += entryDrafts(entry, bindingChanges: decision.bindingChanges, chains: decision.updatedChains)
        }
        for chain in decision.updatedChains {
            drafts += chainDrafts(chain, before: previous[chain.key], decision: decision, app: app, now: now)
        }
        drafts += unclaimedDrafts(decision: decision, previous: previous)
        if let request = refundRequest(input: input, cause: cause, decision: decision, previous: previous) {
            drafts.append(request)
        }
        var seen = Set<String>()
        return drafts.filter { seen.insert($0.idempotencyKey).inserted }
    }

    // MARK: Ledger entries

    private static func entryDrafts(
        _ entry: LedgerEntry, bindingChanges: [BindingChange], chains: [ChainSnapshot]
    ) -> [WebhookEventDraft] {
        func draft(_ type: WebhookEventType, _ members: [EventJSON.Member]) -> WebhookEventDraft {
            WebhookEventDraft(
                type: type, environment: entry.environment, account: entry.account, occurredAt: entry.effectiveAt,
                subject: entry.idempotencyKey,
                data: members + [
                    .init("product_id", .string(entry.productID)),
                    .init("entitlement_ids", .array(entry.entitlementIDs.map(EventJSON.string))),
                    .init("original_transaction_id", .string(entry.chainID)),
                    .init("transaction_id", .string(entry.transactionID)),
                ])
        }
        let reason = EventJSON.string(entry.reason.rawValue)
        switch entry.kind {
        case .grant:
            return [
                draft(
                    .entitlementGranted,
                    [.init("reason", reason), .init("expires_at", .time(entry.periodEnd))]
                        + commitmentMembers(entry, chains: chains))
            ] + offerDrafts(entry, chains: chains, draft: draft)
        case .extend:
            return [
                draft(
                    .entitlementExtended,
                    [.init("reason", reason), .init("expires_at", .time(entry.periodEnd))]
                        + commitmentMembers(entry, chains: chains))
            ] + offerDrafts(entry, chains: chains, draft: draft)
        case .revoke:
            // An upgrade ends the old product: `subscription.product_changed` tells it, not a revocation.
            guard entry.reason != .upgrade else { return [] }
            return [
                draft(
                    .entitlementRevoked,
                    [.init("reason", reason), .init("revoked_at", .time(entry.effectiveAt))]
                        + refundMembers(entry, chains: chains))
            ]
        case .restore:
            return [
                draft(.entitlementRestored, [.init("reason", reason), .init("expires_at", .time(entry.periodEnd))])
            ]
        case .transferOut:
            // The losing account learns that the chain left it and by which rule, never who has it now.
            return [
                draft(
                    .entitlementRevoked,
                    [.init("reason", .string("transferred")), .init("revoked_at", .time(entry.effectiveAt))]),
                draft(.ownershipTransferred, [.init("direction", .string("out")), .init("rule", reason)]),
            ]
        case .transferIn:
            let change = bindingChanges.first {
                $0.chain.chainID == entry.chainID
                    && $0.chain.environment == entry.environment
                    && $0.to == entry.account && $0.from != nil
            }
            return [
                draft(
                    .entitlementGranted,
                    [.init("reason", .string("transferred")), .init("expires_at", .time(entry.periodEnd))]),
                draft(
                    .ownershipTransferred,
                    [
                        .init("direction", .string("in")), .init("rule", reason),
                        .init("previous_account_id", .optional(change?.from?.rawValue)),
                    ]),
            ]
        case .credit, .debit:
            let amount = entry.credits ?? 0
            return [
                draft(
                    .creditsChanged,
                    [.init("reason", reason), .init("delta", .integer(entry.kind == .credit ? amount : -amount))]
                        + (entry.kind == .debit ? refundMembers(entry, chains: chains) : []))
            ]
        }
    }

    /// `subscription.offer_redeemed` for a grant or extension whose transaction an offer priced: a promotional
    /// offer, an offer code or a win-back offer (`offerType` 2, 3, 4; introductory offers are the
    /// `trials` report's), with the offer's identifier, discount type and what the period cost.
    private static func offerDrafts(
        _ entry: LedgerEntry, chains: [ChainSnapshot],
        draft: (WebhookEventType, [EventJSON.Member]) -> WebhookEventDraft
    ) -> [WebhookEventDraft] {
        guard let known = transaction(of: entry, in: chains), let type = known.transaction.offerType,
            let name = [2: "promotional", 3: "offer_code", 4: "win_back"][type]
        else { return [] }
        let price = RevenueFieldRules.price(known.details.price)
        return [
            draft(
                .offerRedeemed,
                [
                    .init("offer_type", .string(name)),
                    .init("offer_identifier", .optional(known.transaction.offerIdentifier)),
                    .init(
                        "offer_discount_type",
                        .optional(RevenueFieldRules.offerDiscountType(known.transaction.offerDiscountType))),
                    .init("price_milli", price.map(EventJSON.integer) ?? .null),
                    .init("currency", .optional(RevenueFieldRules.code(known.details.currency))),
                    .init("expires_at", .time(entry.periodEnd)),
                ])
        ]
    }

    /// For a period of a commitment plan: `billing_plan` and `commitment {billing_period_number,
    /// total_billing_periods, ends_at}`; nothing for other plans.
    private static func commitmentMembers(_ entry: LedgerEntry, chains: [ChainSnapshot]) -> [EventJSON.Member] {
        guard let known = transaction(of: entry, in: chains), let commitment = known.details.commitment else {
            return []
        }
        return [
            .init("billing_plan", .optional(known.details.billingPlanType)),
            .init(
                "commitment",
                .object([
                    .init("billing_period_number", .integer(Int64(commitment.billingPeriodNumber))),
                    .init("total_billing_periods", .integer(Int64(commitment.totalBillingPeriods))),
                    .init("ends_at", .time(commitment.expiresDate)),
                ])),
        ]
    }

    /// The transaction of `entry` in the chains the apply changed.
    private static func transaction(of entry: LedgerEntry, in chains: [ChainSnapshot]) -> KnownTransaction? {
        chains.lazy
            .filter {
                $0.key.environment == entry.environment && $0.key.chainID == entry.chainID
            }
            .flatMap(\.transactions)
            .first { $0.transactionID == entry.transactionID }
    }

    /// For an entry that a refund caused (reason `refund`), the money it gave back, as Apple stated it on the
    /// refunded transaction when the entry was derived: `refund.revocation_percentage` (thousandths of a
    /// percent; `null`: not stated, the whole price), `price_milli` and `refunded_milli` (Apple's price and the
    /// amount the refund gave back, `RefundAmount`; `null` when Apple stated no price), `currency`.
    private static func refundMembers(_ entry: LedgerEntry, chains: [ChainSnapshot]) -> [EventJSON.Member] {
        guard entry.reason == .refund, let known = transaction(of: entry, in: chains) else { return [] }
        let percentage = known.revocations.first { $0.revocationDate == entry.effectiveAt }?.revocationPercentage
        let price = RevenueFieldRules.price(known.details.price)
        return [
            .init(
                "refund",
                .object([
                    .init("revocation_percentage", percentage.map { .integer(Int64($0)) } ?? .null),
                    .init("price_milli", price.map(EventJSON.integer) ?? .null),
                    .init(
                        "refunded_milli",
                        RefundAmount.given(price: price, percentage: percentage, isInForce: true).map { .integer($0) }
                            ?? .null),
                    .init("currency", .optional(RevenueFieldRules.code(known.details.currency))),
                ]))
        ]
    }

    // MARK: Chain state (renewal info, product, claims)

    private static func chainDrafts(
        _ chain: ChainSnapshot, before: ChainSnapshot?, decision: LedgerDecision, app: App, now: Instant
    ) -> [WebhookEventDraft] {
        guard let owner = chain.header.owner else { return [] }
        let key = chain.key
        var drafts: [WebhookEventDraft] = []
        func draft(_ type: WebhookEventType, at instant: Instant, subject: String, _ members: [EventJSON.Member])
            -> WebhookEventDraft
        {
            WebhookEventDraft(
                type: type, environment: key.environment, account: owner, occurredAt: instant,
                subject: "\(key.chainID)|\(subject)",
                data: members + [
                    .init("product_id", .string(chain.header.productID)),
                    .init("original_transaction_id", .string(key.chainID)),
                ])
        }

        if chain.header.productType == .autoRenewable, let renewal = chain.header.renewalInfo,
            renewal != before?.header.renewalInfo
        {
            let old = before?.header.renewalInfo
            if let old,
                old.willAutoRenew != renewal.willAutoRenew || old.autoRenewProductID != renewal.autoRenewProductID
            {
                drafts.append(
                    draft(
                        .renewalStatusChanged, at: renewal.observedAt,
                        subject: "\(renewal.observedAt.millisecondsSince1970)",
                        [
                            .init("will_auto_renew", .bool(renewal.willAutoRenew)),
                            .init("auto_renew_product_id", .optional(renewal.autoRenewProductID)),
                            .init("expiration_intent", renewal.expirationIntent.map { .integer(Int64($0)) } ?? .null),
                            .init(
                                "expiration_reason",
                                renewal.expirationIntent.map {
                                    .string(ExpirationReason(expirationIntent: $0).name)
                                } ?? .null),
                        ]))
            }
            // A price increase: Apple states it pending (0: the customer has not consented yet, and the
            // subscription expires at renewal unless they do) or accepted (1), with the price of the next period.
            if let status = renewal.priceIncreaseStatus, status == 0 || status == 1,
                status != old?.priceIncreaseStatus
            {
                let name = status == 0 ? "pending" : "accepted"
                drafts.append(
                    draft(
                        .priceIncrease, at: renewal.observedAt,
                        subject: "price_increase|\(name)|\(renewal.observedAt.millisecondsSince1970)",
                        [
                            .init("status", .string(name)),
                            .init("auto_renew_product_id", .optional(renewal.autoRenewProductID)),
                            .init(
                                "renewal_price_milli",
                                RevenueFieldRules.price(renewal.renewalPrice).map(EventJSON.integer) ?? .null),
                            .init("currency", .optional(RevenueFieldRules.code(renewal.currency))),
                            .init("renewal_date", .time(renewal.renewalDate)),
                        ]))
            }
            let wasRetrying = old?.isInBillingRetryPeriod ?? false
            var status: String?
            if !wasRetrying && renewal.isInBillingRetryPeriod {
                status = (renewal.gracePeriodExpiresDate.map { now < $0 } ?? false) ? "grace_period" : "billing_retry"
            } else if wasRetrying && !renewal.isInBillingRetryPeriod {
                status = chain.state(at: now, in: app).grantsAccess ? "recovered" : "ended"
            }
            if let status {
                drafts.append(
                    draft(
                        .billingIssue, at: renewal.observedAt,
                        subject: "\(status)|\(renewal.observedAt.millisecondsSince1970)",
                        [
                            .init("status", .string(status)),
                            .init(
                                "grace_period_expires_at",
                                .time(status == "grace_period" ? renewal.gracePeriodExpiresDate : nil)),
                        ]))
            }
        }

        if chain.header.productType == .autoRenewable, let before, !before.transactions.isEmpty,
            before.header.productID != chain.header.productID, let latest = chain.transactions.last
        {
            let from = app.product(before.header.productID)?.groupLevel
            let to = app.product(chain.header.productID)?.groupLevel
            var kind = "crossgrade"
            if let from, let to, from != to { kind = to < from ? "upgrade" : "downgrade" }
            drafts.append(
                draft(
                    .productChanged, at: latest.transaction.purchaseDate, subject: latest.transactionID,
                    [
                        .init("kind", .string(kind)),
                        .init("from_product_id", .string(before.header.productID)),
                        .init("to_product_id", .string(chain.header.productID)),
                        .init("transaction_id", .string(latest.transactionID)),
                    ]))
        }

        for change in decision.bindingChanges
        where change.chain == key && change.reason == .firstClaim && before?.header.owner == nil
            && before?.transactions.isEmpty == false
        {
            drafts.append(
                WebhookEventDraft(
                    type: .transactionClaimed, environment: key.environment, account: change.to, occurredAt: change.at,
                    subject: "\(key.chainID)|\(change.sequence)",
                    data: [
                        .init("original_transaction_id", .string(key.chainID)),
                        .init("product_id", .string(chain.header.productID)),
                        .init(
                            "transaction_ids", .array((before?.transactions ?? []).map { .string($0.transactionID) })),
                    ]))
        }
        return drafts
    }

    // MARK: Transactions nobody can be given yet, refund requests

    private static func unclaimedDrafts(
        decision: LedgerDecision, previous: [ChainKey: ChainSnapshot]
    ) -> [WebhookEventDraft] {
        var drafts: [WebhookEventDraft] = []
        for outcome in decision.transactionOutcomes {
            let deferred: Bool
            switch outcome.result {
            case .unclaimed: deferred = false
            case .deferred: deferred = true
            default: continue
            }
            let key = ChainKey(environment: outcome.environment, chainID: outcome.chainID)
            guard previous[key]?.transaction(outcome.transactionID) == nil else { continue }
            let stored = decision.updatedChains.first { $0.key == key }?.transaction(outcome.transactionID)
            guard let stored, stored.account == nil else { continue }
            drafts.append(
                WebhookEventDraft(
                    type: .transactionUnclaimed, environment: outcome.environment, account: nil,
                    occurredAt: stored.transaction.purchaseDate, subject: outcome.transactionID,
                    data: [
                        .init("transaction_id", .string(outcome.transactionID)),
                        .init("original_transaction_id", .string(outcome.chainID)),
                        .init("product_id", .string(outcome.productID)),
                        .init("deferred", .bool(deferred)),
                    ]))
        }
        return drafts
    }

    /// A customer's refund request (`CONSUMPTION_REQUEST`: `refund.requested`, `requested_at`) or Apple's
    /// refusal of one (`REFUND_DECLINED`: `refund.declined`, `declined_at`), told to the transaction's account.
    private static func refundRequest(
        input: LedgerInput, cause: WebhookEventCause, decision: LedgerDecision, previous: [ChainKey: ChainSnapshot]
    ) -> WebhookEventDraft? {
        guard cause.kind == .notification, let transaction = input.transactions.first else { return nil }
        let type: WebhookEventType
        let moment: String
        switch cause.notificationType {
        case "CONSUMPTION_REQUEST": (type, moment) = (.refundRequested, "requested_at")
        case "REFUND_DECLINED": (type, moment) = (.refundDeclined, "declined_at")
        default: return nil
        }
        let key = transaction.chainKey
        let chain = decision.updatedChains.first { $0.key == key } ?? previous[key]
        let account = chain?.transaction(transaction.transactionID)?.account ?? chain?.header.owner
        let at = input.observedAt ?? transaction.purchaseDate
        var data: [EventJSON.Member] = [
            .init("transaction_id", .string(transaction.transactionID)),
            .init("original_transaction_id", .string(transaction.chainID)),
            .init("product_id", .string(transaction.productID)),
            .init(moment, .time(at)),
        ]
        if type == .refundRequested, let reason = cause.consumptionRequestReason {
            data.append(.init("reason", .string(reason)))
        }
        return WebhookEventDraft(
            type: type, environment: transaction.environment, account: account, occurredAt: at,
            subject: cause.id ?? transaction.transactionID, data: data)
    }
}
