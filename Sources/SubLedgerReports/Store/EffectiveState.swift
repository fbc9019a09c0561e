/// SQL for a chain's state at an instant, from the `chains` row's columns.
///
/// The `state` column is computed when the chain is last written. A chain whose paid period has run out
/// since then is still stored `active` until something rewrites it, so the reports apply the lapse part of
/// `ChainState`'s derivation on the columns: an auto-renewable chain stored `active` whose `expires_at` is
/// at or before the instant is `grace_period` while `in_billing_retry` and before `grace_expires_at`,
/// `billing_retry` while `in_billing_retry`, else `expired`; a `grace_period` chain whose grace has ended
/// is `billing_retry`. Every other stored state stands (revocations and upgrades are already stored).
enum EffectiveState {
    /// The state expression on the `chains` alias `c`, at the instant in the SQL expression `instant`.
    static func sql(at instant: String) -> String {
        """
        CASE
            WHEN c.state = 'active' AND c.product_type = 'auto_renewable' AND c.expires_at <= \(instant) THEN
                CASE WHEN c.in_billing_retry AND c.grace_expires_at > \(instant) THEN 'grace_period'
                     WHEN c.in_billing_retry THEN 'billing_retry'
                     ELSE 'expired' END
            WHEN c.state = 'grace_period' AND c.grace_expires_at <= \(instant) THEN 'billing_retry'
            ELSE c.state
        END
        """
    }
}
