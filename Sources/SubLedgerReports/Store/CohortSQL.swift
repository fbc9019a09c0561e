import PostgresLibPQ

/// The SQL vocabulary of the cohort reports (`trials`, `retention`): which transactions are free trials,
/// introductory offers, paid, refunded, and what they cost, on the `transactions` alias given.
///
/// These restate `docs/explanation/revenue.md` ("Cohorts: trials and retention") and the `transaction_amounts` view of
/// schema step 14 (its amount expression is inlined here so that a report reads `transactions` once, with the
/// columns the view leaves out: ownership and the upgrade flag in the kept payload). Change one, change both.
enum CohortSQL {
    /// A free trial: Apple's `is_trial_period`, or any offer whose discount type is `FREE_TRIAL` (an
    /// introductory free trial, or a promotional or offer-code one).
    static func isTrial(_ t: PostgresQuery) -> PostgresQuery {
        "(\(t).is_trial_period OR \(t).offer_discount_type IS NOT DISTINCT FROM 'FREE_TRIAL')"
    }

    /// A paid introductory offer (pay as you go, pay up front): in an intro period, or StoreKit 2's offer type 1,
    /// and not free.
    static func isIntro(_ t: PostgresQuery) -> PostgresQuery {
        "(NOT \(isTrial(t)) AND (\(t).is_in_intro_offer_period OR \(t).offer_type IS NOT DISTINCT FROM 1))"
    }

    /// A free trial or a paid introductory offer, as a condition (NULL counts as false).
    static func isOffer(_ t: PostgresQuery) -> PostgresQuery {
        "(\(t).is_trial_period OR \(t).offer_discount_type = 'FREE_TRIAL' OR \(t).is_in_intro_offer_period OR \(t).offer_type = 1)"
    }

    /// A payment by the chain's subscriber: not a free trial, and not a Family Sharing grant (the family member
    /// pays nothing; the organizer's own chain holds the payment).
    static func isPaid(_ t: PostgresQuery) -> PostgresQuery {
        "(NOT \(isTrial(t)) AND \(t).ownership_type <> 'FAMILY_SHARED')"
    }

    /// Refunded: revoked, and not because the subscriber upgraded (Apple revokes the upgraded-from transaction
    /// at the upgrade and marks it `isUpgraded`; the ledger keeps that flag in the payload only). The payload is
    /// read only for the few revoked rows.
    static func isRefunded(_ t: PostgresQuery) -> PostgresQuery {
        "(\(t).revocation_date IS NOT NULL AND NOT coalesce((\(t).payload -> 'transaction' ->> 'isUpgraded')::boolean, false))"
    }

    /// When the period a transaction paid for ends: its expiry, cut at an upgrade (the revocation of a
    /// transaction that was not refunded).
    static func paidUntil(_ t: PostgresQuery) -> PostgresQuery {
        "CASE WHEN \(t).revocation_date IS NOT NULL THEN least(\(t).revocation_date, \(t).expires_date) ELSE \(t).expires_date END"
    }

    /// The catalog's price point for a transaction without Apple's price, as a lateral join named `catalog`
    /// (the `transaction_amounts` view's).
    static func catalogPrice(_ t: PostgresQuery) -> PostgresQuery {
        """
        LEFT JOIN LATERAL (
            SELECT cp.price_milliunits, cp.currency FROM catalog_prices cp
            WHERE cp.app_id = \(t).app_id AND cp.product_id = \(t).product_id AND \(t).price_milliunits IS NULL
              AND (cp.storefront = \(t).storefront OR cp.storefront IS NULL) AND cp.effective_from <= \(t).purchase_date
            ORDER BY (cp.storefront IS NULL), cp.effective_from DESC
            LIMIT 1
        ) catalog ON true
        """
    }

    /// The amount of a paid transaction (Apple's price, else the catalog's), with `catalogPrice` joined.
    static func amount(_ t: PostgresQuery) -> PostgresQuery {
        "coalesce(\(t).price_milliunits, catalog.price_milliunits)"
    }

    /// What a refund of the transaction gives back of `amount(t)`: the share Apple stated
    /// (`revocation_percentage`, thousandths of a percent) rounded half up, else the whole amount
    /// (SubLedgerCore's `RevocationPercentage.refunded`).
    static func refundedAmount(_ t: PostgresQuery) -> PostgresQuery {
        """
        CASE WHEN \(t).revocation_percentage IS NULL OR \(t).revocation_percentage >= 100000 THEN \(amount(t))
             ELSE div(\(amount(t))::numeric * \(t).revocation_percentage + 50000, 100000)::bigint END
        """
    }
    static func currency(_ t: PostgresQuery) -> PostgresQuery { "coalesce(\(t).currency, catalog.currency)" }
    static func estimated(_ t: PostgresQuery) -> PostgresQuery {
        "(\(t).price_milliunits IS NULL AND catalog.price_milliunits IS NOT NULL)"
    }

    /// Whole calendar months from the UTC timestamp `anchor` to the UTC timestamp `moment`, by their year and
    /// month fields only (the day is ignored): the estimate that `monthsSince` and `monthsBefore` correct.
    static func calendarMonths(from anchor: PostgresQuery, to moment: PostgresQuery) -> PostgresQuery {
        "((extract(year FROM \(moment)) - extract(year FROM \(anchor))) * 12 + extract(month FROM \(moment)) - extract(month FROM \(anchor)))::int"
    }

    /// The largest k with `anchor + k months <= moment`: the month since `anchor` that `moment` falls in.
    /// `anchor + k months` is in the calendar month of `moment` when k is the calendar difference, so at most one
    /// step back is needed. PostgreSQL adds months the way Apple renews them: the 31st plus one month is the
    /// last day of a shorter month.
    static func monthsSince(_ anchor: PostgresQuery, _ moment: PostgresQuery) -> PostgresQuery {
        let estimate = calendarMonths(from: anchor, to: moment)
        return "(\(estimate) - CASE WHEN \(anchor) + \(estimate) * interval '1 month' > \(moment) THEN 1 ELSE 0 END)"
    }

    /// The largest k with `anchor + k months < moment`: the last month since `anchor` that a period ending at
    /// `moment` reaches into.
    static func monthsBefore(_ anchor: PostgresQuery, _ moment: PostgresQuery) -> PostgresQuery {
        let estimate = calendarMonths(from: anchor, to: moment)
        return "(\(estimate) - CASE WHEN \(anchor) + \(estimate) * interval '1 month' >= \(moment) THEN 1 ELSE 0 END)"
    }
}
