/// An entitlement given to an account by hand (support after a failed payment, a reviewer, a partner), not sold
/// by a store (docs/guides/accounts.md, "Granted entitlements").
///
/// It grants `entitlementID` from `startsAt` (inclusive) until `endsAt` (exclusive), or until its revocation
/// when that comes first: a revoked grant ends at the revocation.
public struct EntitlementGrant: Hashable, Sendable {
    /// The longest grant: 100 years of 365 days.
    public static let maximumDurationMilliseconds: Int64 = 36_500 * 86_400_000
    /// The most characters a grant's reason may have.
    public static let maximumReasonLength = 500

    /// Lowercase UUID.
    public var grantID: String
    public var account: AccountID
    public var entitlementID: String
    public var environment: StoreEnvironment
    public var startsAt: Instant
    /// The end as granted.
    public var endsAt: Instant
    public var revokedAt: Instant?

    public init(
        grantID: String, account: AccountID, entitlementID: String, environment: StoreEnvironment,
        startsAt: Instant, endsAt: Instant, revokedAt: Instant? = nil
    ) {
        self.grantID = grantID
        self.account = account
        self.entitlementID = entitlementID
        self.environment = environment
        self.startsAt = startsAt
        self.endsAt = endsAt
        self.revokedAt = revokedAt
    }

    /// When access from the grant ends: the granted end, or the revocation if earlier.
    public var accessEndsAt: Instant { revokedAt.map { min($0, endsAt) } ?? endsAt }

    /// Whether the grant gives access at `instant`.
    public func contains(_ instant: Instant) -> Bool { startsAt <= instant && instant < accessEndsAt }

    /// The product a read names for the grant: of the catalog's products carrying the entitlement, the one of the
    /// highest level (lowest `groupLevel`), then the first by id; `nil` when no product carries it.
    public static func product(for entitlementID: String, in app: App) -> Product? {
        app.products.filter { $0.type != .consumable && $0.entitlementIDs.contains(entitlementID) }
            .min { ($0.groupLevel ?? Int.max, $0.productID) < ($1.groupLevel ?? Int.max, $1.productID) }
    }

    /// The grant as an entitlement read shows it: `active` until `accessEndsAt`, its source `granted`, its
    /// original transaction id the grant's id. `nil` when the catalog no longer carries the entitlement.
    public func entitlement(in app: App) -> Entitlement? {
        guard let product = Self.product(for: entitlementID, in: app) else { return nil }
        return Entitlement(
            entitlementID: entitlementID, productID: product.productID, productType: product.type,
            bundleID: app.bundleID, environment: environment, chainID: grantID, transactionID: grantID,
            state: .active, expiresAt: accessEndsAt, gracePeriodExpiresAt: nil, willAutoRenew: nil,
            ownershipType: .purchased, store: product.store, grantID: grantID)
    }
}

extension Ledger {
    /// `sold` (one entitlement per id, as `entitlements(for:at:chains:app:)` gives them) with the `grants` that
    /// give access at `instant` (in `environment`, when given) combined in: a grant competes with a store's
    /// entitlement of the same id as two purchases would (the later end of access wins, `isBetter`).
    public static func entitlements(
        _ sold: [Entitlement], granted grants: [EntitlementGrant], at instant: Instant, app: App,
        environment: StoreEnvironment? = nil
    ) -> [Entitlement] {
        guard !grants.isEmpty else { return sold }
        var best = Dictionary(sold.map { ($0.entitlementID, $0) }, uniquingKeysWith: { first, _ in first })
        for grant in grants.sorted(by: { $0.grantID < $1.grantID })
        where grant.contains(instant) && (environment == nil || grant.environment == environment) {
            guard let candidate = grant.entitlement(in: app) else { continue }
            if best[candidate.entitlementID].map({ isBetter(candidate, than: $0, app: app) }) ?? true {
                best[candidate.entitlementID] = candidate
            }
        }
        return best.keys.sorted().compactMap { best[$0] }
    }
}

extension EntitlementGrant {
    /// The ledger's chain of a grant (`ledger_entries.original_transaction_id`): every grant is a chain of its own.
    public var chainID: String { "grant:\(grantID)" }

    /// The grant's chain as the outbox and the webhook clock key it.
    public var chainKey: ChainKey { ChainKey(environment: environment, chainID: chainID) }

    /// The grant id of a grant's chain id (`grant:<grant_id>`); nil for a store's chain.
    public static func grantID(chainID: String) -> String? {
        chainID.hasPrefix("grant:") ? String(chainID.dropFirst("grant:".count)) : nil
    }

    /// The moment the webhook clock announces the grant's end: its end as granted.
    public var expiryMoment: WebhookClockMoment { WebhookClockMoment(chain: chainKey, dueAt: endsAt) }

    /// The `data` members a grant's events share with a purchase's (`product_id`, `entitlement_ids`,
    /// `original_transaction_id`, `transaction_id`), and `grant_id`.
    private func eventMembers(product: Product?) -> [EventJSON.Member] {
        [
            .init("product_id", .string(product?.productID ?? "")),
            .init("entitlement_ids", .array([.string(entitlementID)])),
            .init("original_transaction_id", .string(grantID)),
            .init("transaction_id", .string(grantID)),
            .init("grant_id", .string(grantID)),
        ]
    }

    /// `entitlement.granted` for the grant, at its start (`data.reason`: `granted`), as a purchase announces it.
    public func grantedEvent(in app: App) -> WebhookEventDraft {
        WebhookEventDraft(
            type: .entitlementGranted, environment: environment, account: account, occurredAt: startsAt,
            subject: "\(chainID)|granted",
            data: [.init("reason", .string("granted")), .init("expires_at", .time(endsAt))]
                + eventMembers(product: Self.product(for: entitlementID, in: app)))
    }

    /// `entitlement.revoked` for the grant's revocation at `revokedAt` (`data.reason`: `grant_revoked`), as a
    /// refund announces it.
    public func revokedEvent(in app: App) -> WebhookEventDraft? {
        guard let revokedAt else { return nil }
        return WebhookEventDraft(
            type: .entitlementRevoked, environment: environment, account: account, occurredAt: revokedAt,
            subject: "\(chainID)|revoked",
            data: [.init("reason", .string("grant_revoked")), .init("revoked_at", .time(revokedAt))]
                + eventMembers(product: Self.product(for: entitlementID, in: app)))
    }

    /// The events of an account merge that moved the grant from `from` to its account at `now`, while it gives
    /// access: `entitlement.revoked` for `from` and `entitlement.granted` for the new account, both with
    /// `data.reason` `transferred`, as a chain's transfer announces them.
    public func mergeEvents(from: AccountID, at now: Instant, in app: App) -> [WebhookEventDraft] {
        guard contains(now) else { return [] }
        let members = eventMembers(product: Self.product(for: entitlementID, in: app))
        let subject = "\(chainID)|merged:\(from.rawValue)->\(account.rawValue)"
        return [
            WebhookEventDraft(
                type: .entitlementRevoked, environment: environment, account: from, occurredAt: now,
                subject: subject + "|out",
                data: [.init("reason", .string("transferred")), .init("revoked_at", .time(now))] + members),
            WebhookEventDraft(
                type: .entitlementGranted, environment: environment, account: account, occurredAt: now,
                subject: subject + "|in",
                data: [.init("reason", .string("transferred")), .init("expires_at", .time(accessEndsAt))] + members),
        ]
    }

    /// `entitlement.expired` at the grant's end (`data.reason`: `grant_ended`), as a store's period ending
    /// announces it; nil when the grant was revoked before its end (the revocation was announced instead).
    public func expiredEvent(in app: App) -> WebhookEventDraft? {
        guard revokedAt.map({ $0 >= endsAt }) ?? true else { return nil }
        return WebhookEventDraft(
            type: .entitlementExpired, environment: environment, account: account, occurredAt: endsAt,
            subject: "\(chainID)|expired",
            data: [
                .init("reason", .string("grant_ended")), .init("grace_period_ended", .bool(false)),
                .init("expired_at", .time(endsAt)),
            ] + eventMembers(product: Self.product(for: entitlementID, in: app)))
    }
}
