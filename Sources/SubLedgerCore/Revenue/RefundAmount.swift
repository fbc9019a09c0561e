/// What a refund gives back: the one definition of a refund's amount in every money figure.
///
/// A refund gives back the share of the transaction's price that the store stated, and nothing once the store
/// reversed it:
/// - **Apple**: `revocationPercentage` (`RevocationPercentage`, thousandths of a percent) on a StoreKit 2
///   transaction refunded in part (`REFUND_PRORATED`); a refund that states none (receipts, V1 notifications, a
///   full refund) gives back the whole price. `REFUND_REVERSED` takes the refund back: the transaction carries no
///   revocation any more and its sale counts whole again.
/// - **Google**: a voided purchase gives back the whole order; a quantity-based partial refund gives back the voided
///   quantity's share of the quantity bought, which ingestion states as the same percentage
///   (`GooglePlayIngestion.revoked`). Google never reverses a void.
///
/// Whether a refund is in force is read from the transaction: its revocation in force
/// (`KnownTransaction.activeRevocation`, kept as `transactions.revocation_date` and `revocation_percentage`) is
/// that refund. Every report takes a refund's amount from here — the `refunds` report's rows and totals, the
/// `revenue` report's refunds through `RevenueTransaction.refundedMilliunits`, the webhook's `refund` — or, where
/// PostgreSQL computes the report aggregates (`chain_money_facts.refund_milli`, `revenue_day_totals`, the cohort
/// money), from the schema's `refunded_milli`, this rule's statement in SQL applied to the revocation in force
/// (held to this rule by `MoneyFactsAgreementTests` and `RefundAmountAgreementTests`).
public enum RefundAmount {
    /// The amount a refund of a transaction priced `price` gives back, in milli-units of the transaction's currency.
    ///
    /// - Parameters:
    ///   - price: the transaction's amount (the store's price, else the catalog's; 0 for a free trial); `nil`:
    ///     nothing prices it.
    ///   - percentage: the share the store stated (`RevocationPercentage`); `nil` or out of range: the whole price.
    ///   - isInForce: whether the refund still stands; `false` once the store reversed it.
    /// - Returns: 0 for a reversed refund, whatever the price (nothing was given back); for a refund in force, the
    ///   stated share of `price` (`RevocationPercentage.refunded`: rounded half up, never negative), or `nil` when
    ///   the transaction is unpriced.
    public static func given(price: Int64?, percentage: Int?, isInForce: Bool) -> Int64? {
        guard isInForce else { return 0 }
        return price.map { RevocationPercentage.refunded(of: $0, percentage: percentage) }
    }
}
