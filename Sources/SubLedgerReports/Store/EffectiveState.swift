import PostgresLibPQ

/// SQL for a chain's state at an instant, from the `chains` row's columns: the reports' form of the lapse
/// rules, checked against their one definition.
///
/// The definition is `ChainSnapshot.state(at:in:)` in `SubLedgerCore` (`ChainStateDerivation`, documented on
/// `ChainState`); this expression restates only what can change after a chain was written without anything
/// new arriving. `EffectiveStateAgreementTests` (SubLedgerReportsTests) writes hundreds of randomized chains
/// through `LedgerStore.apply` and checks that this expression on the stored row and the core's derivation
/// agree at instants around every expiry, grace end and period end; change the rules there first, then here.
///
/// The `state` column is the derivation at the time the chain was last written. A chain whose paid period
/// has run out since then is still stored `active` until something rewrites it, so the reports apply the
/// lapse part of the derivation on the columns: an auto-renewable chain stored `active` whose `expires_at` is
/// at or before the instant is `grace_period` while `in_billing_retry` and before `grace_expires_at`,
/// `billing_retry` while `in_billing_retry`, else `expired`; a non-renewing chain stored `active` whose period
/// (`expires_at`, its purchase date plus the catalog duration) has ended is `expired`; a `grace_period`
/// chain whose grace has ended is `billing_retry`. Every other stored state stands (revocations and upgrades
/// are already stored).
///
/// `expires_at` is the latest period end of the chain's transactions, an upgraded transaction's period cut
/// at the upgrade (`Ledger.refreshChainRow`), so an upgrade from a longer period lapses here when the
/// successor's period ends, as in the core.
enum EffectiveState {
    /// The state expression on the `chains` alias `c`, at the instant in the SQL expression `instant`.
    static func sql(at instant: PostgresQuery) -> PostgresQuery {
        """
        CASE
            WHEN c.state = 'active' AND c.product_type = 'auto_renewable' AND c.expires_at <= \(instant) THEN
                CASE WHEN c.in_billing_retry AND c.grace_expires_at > \(instant) THEN 'grace_period'
                     WHEN c.in_billing_retry THEN 'billing_retry'
                     ELSE 'expired' END
            WHEN c.state = 'active' AND c.product_type = 'non_renewing' AND c.expires_at <= \(instant) THEN 'expired'
            WHEN c.state = 'grace_period' AND c.grace_expires_at <= \(instant) THEN 'billing_retry'
            ELSE c.state
        END
        """
    }
}
