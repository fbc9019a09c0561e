import PostgresLibPQ
import SubLedgerCore

/// Chains whose paid period ends within a window, with what is known about their renewal.
public struct ExpiringReport: Sendable, Hashable, Codable {
    public struct Row: Sendable, Hashable, Codable {
        public var bundleID: String
        public var environment: String
        public var originalTransactionID: String
        public var productID: String
        public var ownerAccountID: String?
        public var expiresAt: Instant
        /// The stored state (`active`, `grace_period` or `billing_retry`).
        public var state: String
        /// Apple's auto-renew status; nil when no renewal info was ever seen.
        public var willAutoRenew: Bool?
        public var inBillingRetry: Bool
        public var graceExpiresAt: Instant?
        /// Apple's `billingPlanType` of the chain's latest transaction (`MONTHLY` for a monthly plan with a
        /// commitment); nil for a plan without one.
        public var billingPlan: String? = nil
        /// When the chain's commitment ends, for a plan with one: the customer pays every period until then,
        /// whatever the auto-renew status, so a commitment ending after `expiresAt` means the chain renews.
        public var commitmentEndsAt: Instant? = nil
    }

    public struct Totals: Sendable, Hashable, Codable {
        public var chains: Int
        public var willAutoRenew: Int
        public var willNotAutoRenew: Int
        public var autoRenewUnknown: Int
        public var inBillingRetry: Int
        /// Chains in a commitment that runs past their expiry: they renew whatever their auto-renew status.
        public var inCommitment: Int = 0
    }

    public var from: Instant
    public var to: Instant
    /// The earliest-expiring `limit` chains of the window.
    public var rows: [Row]
    /// Over the whole window, whatever the limit.
    public var totals: Totals
    /// Whether more chains expire in the window than `rows` holds.
    public var truncated: Bool
}

extension Reports {
    /// Chains stored `active`, `grace_period` or `billing_retry` whose `expires_at` lies in
    /// [`at`, `at + within`), earliest first (at most `limit` rows; the totals count them all), each with its
    /// billing plan and commitment end when it is a plan with a commitment.
    public static func expiring(
        on connection: PostgresConnection, scope: ReportScope, at: Instant, within: Duration, limit: Int
    ) throws -> ExpiringReport {
        let store = try ReportStore(on: connection, scope: scope)
        let to = at.adding(milliseconds: within.milliseconds)
        let rows = try store.expiringChains(from: at, to: to, limit: limit)
        let totals = try store.expiringTotals(from: at, to: to)
        return ExpiringReport(from: at, to: to, rows: rows, totals: totals, truncated: totals.chains > rows.count)
    }
}
