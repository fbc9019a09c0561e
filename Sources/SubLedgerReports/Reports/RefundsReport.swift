import PostgresLibPQ
import SubLedgerCore

/// Refunds and Family Sharing revocations, with the amount each gave back (`RefundAmount`: the share the store
/// stated, nothing once reversed), and the partial refunds of web sales, which take nothing back (Stripe's refunds of
/// part of a charge: the amount Stripe gave back): per currency, the `revenue` report's refunds of the same range,
/// less its upgrade credits.
public struct RefundsReport: Sendable, Hashable, Codable {
    public struct Row: Sendable, Hashable, Codable {
        /// The revocation date (the ledger entry's `effective_at`).
        public var at: Instant
        public var bundleID: String
        public var environment: String
        public var accountID: String?
        public var productID: String
        public var originalTransactionID: String
        public var transactionID: String?
        /// `revoke` (subscriptions and one-time purchases), `debit` (consumable credits taken back) or
        /// `partial_refund` (money given back on a web sale that keeps what it granted: `refundedMilli`).
        public var kind: String
        /// `refund` or `family_sharing_revoked`.
        public var reason: String?
        /// Apple's raw `revocationReason` (0 other, 1 a problem in the app), when stored.
        public var revocationReasonCode: Int?
        /// Credits taken back, for a `debit`.
        public var credits: Int64?
        /// The transaction's amount in milli-units of `currency`, as the `revenue` report counts it: the store's
        /// price, else the catalog's (`estimated`); 0 for a free trial; `nil` when nothing prices it.
        public var priceMilli: Int64?
        public var currency: String?
        /// The share the store stated for this refund (`RevocationPercentage`, thousandths of a percent; `nil`: not
        /// stated, the whole price, or reversed).
        public var revocationPercentage: Int? = nil
        /// What the refund gave back (`RefundAmount`): `priceMilli` × the percentage, rounded half up (the whole
        /// price when none is stated); 0 once reversed; `nil` when unpriced.
        public var refundedMilli: Int64? = nil
        /// The store reversed the refund since (Apple's `REFUND_REVERSED`): listed, at 0, beside the `restore` (or
        /// `credit`) entry that undid it.
        public var reversed: Bool = false
        /// `priceMilli` came from the catalog, not from the store.
        public var estimated: Bool = false
    }

    public struct CurrencyTotal: Sendable, Hashable, Codable {
        public var currency: String
        /// Refunds in force in this currency (reversed ones give back nothing and are not counted here).
        public var refunds: Int
        /// The amounts given back (`Row.refundedMilli`): prorated refunds count their refunded part only.
        public var amountMilli: Int64
        /// The part of `amountMilli` priced from the catalog.
        public var estimatedMilli: Int64 = 0
    }

    public struct Totals: Sendable, Hashable, Codable {
        /// Refunds listed in the range, reversed ones included.
        public var refunds: Int
        public var familySharingRevocations: Int
        public var debits: Int
        /// Of the above, those the store reversed since (listed at 0, in no amount).
        public var reversed: Int = 0
        /// Revocations in force whose amount is unknown (neither the store nor the catalog prices them).
        public var withoutAmount: Int
        public var amounts: [CurrencyTotal]
    }

    public var from: Instant
    public var to: Instant
    /// The latest `limit` revocations of the range, newest first.
    public var rows: [Row]
    /// Every revocation of the range, by kind, reason and currency.
    public var totals: Totals
    /// Whether the range holds more revocations than `rows`.
    public var truncated: Bool

    /// The `kind` of a row that is a web sale's partial refund.
    public static let partialRefundKind = "partial_refund"
}

extension Reports {
    /// `ledger_entries` of kind `revoke` with reason `refund` or `family_sharing_revoked`, and of kind
    /// `debit`, whose `effective_at` lies in [`from`, `to`), joined to their transaction for Apple's
    /// revocation reason, the amount, currency and the share refunded. Newest first, at most `limit` rows; totals
    /// cover the range. Each amount given back is `RefundAmount.given`: the stated share, 0 once reversed.
    public static func refunds(
        on connection: PostgresConnection, scope: ReportScope, from: Instant, to: Instant, limit: Int
    ) throws -> RefundsReport {
        try ReportError.checkRange(from: from, to: to)
        let store = try ReportStore(on: connection, scope: scope)
        let rows = Self.newestFirst(
            try store.revocations(from: from, to: to, limit: limit),
            try store.partialRefunds(from: from, to: to, limit: limit), limit: limit)
        var totals = RefundsReport.Totals(
            refunds: 0, familySharingRevocations: 0, debits: 0, withoutAmount: 0, amounts: [])
        for group in try store.revocationGroups(from: from, to: to) {
            let count = group.count
            if group.kind == "debit" {
                totals.debits += count
            } else if group.reason == "family_sharing_revoked" {
                totals.familySharingRevocations += count
            } else {
                totals.refunds += count
            }
            guard group.isInForce else {
                totals.reversed += count
                continue
            }
            guard let currency = group.currency,
                let each = RefundAmount.given(
                    price: group.priceMilli, percentage: group.revocationPercentage, isInForce: true)
            else {
                totals.withoutAmount += count
                continue
            }
            let amount = each * Int64(count)
            let estimated = group.estimated ? amount : 0
            if let index = totals.amounts.firstIndex(where: { $0.currency == currency }) {
                totals.amounts[index].refunds += count
                totals.amounts[index].amountMilli += amount
                totals.amounts[index].estimatedMilli += estimated
            } else {
                totals.amounts.append(
                    .init(currency: currency, refunds: count, amountMilli: amount, estimatedMilli: estimated))
            }
        }
        for partial in try store.partialRefundTotals(from: from, to: to) {
            totals.refunds += partial.refunds
            if let index = totals.amounts.firstIndex(where: { $0.currency == partial.currency }) {
                totals.amounts[index].refunds += partial.refunds
                totals.amounts[index].amountMilli += partial.amountMilli
                totals.amounts[index].estimatedMilli += partial.estimatedMilli
            } else {
                totals.amounts.append(partial)
            }
        }
        totals.amounts.sort { $0.currency < $1.currency }
        let count = totals.refunds + totals.familySharingRevocations + totals.debits
        return RefundsReport(from: from, to: to, rows: rows, totals: totals, truncated: count > rows.count)
    }

    /// The newest `limit` of two lists each newest first (a revocation before a partial refund of the same instant).
    static func newestFirst(_ revoked: [RefundsReport.Row], _ partial: [RefundsReport.Row], limit: Int)
        -> [RefundsReport.Row]
    {
        var merged: [RefundsReport.Row] = []
        merged.reserveCapacity(min(limit, revoked.count + partial.count))
        var (i, j) = (0, 0)
        while merged.count < limit, i < revoked.count || j < partial.count {
            if j == partial.count || (i < revoked.count && revoked[i].at >= partial[j].at) {
                merged.append(revoked[i])
                i += 1
            } else {
                merged.append(partial[j])
                j += 1
            }
        }
        return merged
    }
}
