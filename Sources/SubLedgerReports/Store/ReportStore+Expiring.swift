import PostgresLibPQ
import SubLedgerCore

extension ReportStore {
    /// Chains stored `active`, `grace_period` or `billing_retry` whose `expires_at` lies in [`from`, `to`),
    /// earliest first, at most `limit`.
    func expiringChains(from: Instant, to: Instant, limit: Int) throws -> [ExpiringReport.Row] {
        try run(
            """
            WITH \(apps)
            SELECT s.bundle_id, c.environment, c.original_transaction_id, c.product_id, c.owner_account_id, c.expires_at,
                   c.state, c.will_auto_renew, c.in_billing_retry, c.grace_expires_at, c.billing_plan, c.commitment_ends_at
            FROM chains c JOIN scope s ON s.app_id = c.app_id
            WHERE \(expiring(from: from, to: to))
            ORDER BY c.expires_at, s.bundle_id, c.environment, c.original_transaction_id
            LIMIT \(limit)
            """
        ).map { row in
            ExpiringReport.Row(
                bundleID: try row.decode(String.self, at: 0), environment: try row.decode(String.self, at: 1),
                originalTransactionID: try row.decode(String.self, at: 2),
                productID: try row.decode(String.self, at: 3),
                ownerAccountID: try row.decode(String?.self, at: 4), expiresAt: try row.instant(at: 5),
                state: try row.decode(String.self, at: 6), willAutoRenew: try row.decode(Bool?.self, at: 7),
                inBillingRetry: try row.decode(Bool.self, at: 8), graceExpiresAt: try row.optionalInstant(at: 9),
                billingPlan: try row.decode(String?.self, at: 10), commitmentEndsAt: try row.optionalInstant(at: 11))
        }
    }

    /// The same chains as `expiringChains`, all of them counted by what is known of their renewal.
    func expiringTotals(from: Instant, to: Instant) throws -> ExpiringReport.Totals {
        let row = try run(
            """
            WITH \(apps)
            SELECT count(*), count(*) FILTER (WHERE c.will_auto_renew), count(*) FILTER (WHERE NOT c.will_auto_renew),
                   count(*) FILTER (WHERE c.will_auto_renew IS NULL), count(*) FILTER (WHERE c.in_billing_retry),
                   count(*) FILTER (WHERE c.commitment_ends_at > c.expires_at)
            FROM chains c JOIN scope s ON s.app_id = c.app_id
            WHERE \(expiring(from: from, to: to))
            """
        ).single()
        return ExpiringReport.Totals(
            chains: try row.decode(Int.self, at: 0), willAutoRenew: try row.decode(Int.self, at: 1),
            willNotAutoRenew: try row.decode(Int.self, at: 2), autoRenewUnknown: try row.decode(Int.self, at: 3),
            inBillingRetry: try row.decode(Int.self, at: 4), inCommitment: try row.decode(Int.self, at: 5))
    }

    /// The chains (alias `c`) of the scope's environment that are live and expire in [`from`, `to`).
    func expiring(from: Instant, to: Instant) -> PostgresQuery {
        """
        \(inEnvironment("c.environment"))
          AND c.expires_at >= \(from)::timestamptz AND c.expires_at < \(to)::timestamptz
          AND c.state IN ('active', 'grace_period', 'billing_retry')
        """
    }
}
