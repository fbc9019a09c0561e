import PostgresLibPQ
import SubLedgerCore

/// Refunds and Family Sharing revocations, with the amount given back where Apple stated a price (the share
/// refunded, for a prorated refund).
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
        /// `revoke` (subscriptions and one-time purchases) or `debit` (consumable credits taken back).
        public var kind: String
        /// `refund` or `family_sharing_revoked`.
        public var reason: String?
        /// Apple's raw `revocationReason` (0 other, 1 a problem in the app), when stored.
        public var revocationReasonCode: Int?
        /// Credits taken back, for a `debit`.
        public var credits: Int64?
        /// The transaction's price in milli-units of `currency` (StoreKit 2 only).
        public var priceMilli: Int64?
        public var currency: String?
        /// Apple's `revocationPercentage` of the refund in force (thousandths of a percent; `nil`: not stated,
        /// the whole price).
        public var revocationPercentage: Int? = nil
        /// The part of the price given back: `priceMilli` × the percentage, rounded half up (the whole price
        /// when no percentage is stated); `nil` without a price.
        public var refundedMilli: Int64? = nil
    }

    public struct CurrencyTotal: Sendable, Hashable, Codable {
        public var currency: String
        public var refunds: Int
        /// The amounts given back (`Row.refundedMilli`): prorated refunds count their refunded part only.
        public var amountMilli: Int64
    }

    public struct Totals: Sendable, Hashable, Codable {
        public var refunds: Int
        public var familySharingRevocations: Int
        public var debits: Int
        /// Revocations whose price is unknown (legacy receipts state none).
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
}

extension Reports {
    /// `ledger_entries` of kind `revoke` with reason `refund` or `family_sharing_revoked`, and of kind
    /// `debit`, whose `effective_at` lies in [`from`, `to`), joined to their transaction for Apple's
    /// revocation reason, price and currency. Newest first, at most `limit` rows; totals cover the range.
    public static func refunds(
        on connection: PostgresConnection, scope: ReportScope, from: Instant, to: Instant, limit: Int
    ) throws -> RefundsReport {
        try ReportError.checkRange(from: from, to: to)
        let store = try ReportStore(on: connection, scope: scope)
        let rows = try store.revocations(from: from, to: to, limit: limit)
        var totals = RefundsReport.Totals(
            refunds: 0, familySharingRevocations: 0, debits: 0, withoutAmount: 0, amounts: [])
        for revocations in try store.revocationCounts(from: from, to: to) {
            let count = revocations.count
            if revocations.kind == "debit" {
                totals.debits += count
            } else if revocations.reason == "family_sharing_revoked" {
                totals.familySharingRevocations += count
            } else {
                totals.refunds += count
            }
            if let currency = revocations.currency, let amount = revocations.amountMilli {
                if let index = totals.amounts.firstIndex(where: { $0.currency == currency }) {
                    totals.amounts[index].refunds += count
                    totals.amounts[index].amountMilli += amount
                } else {
                    totals.amounts.append(.init(currency: currency, refunds: count, amountMilli: amount))
                }
            } else {
                totals.withoutAmount += count
            }
        }
        totals.amounts.sort { $0.currency < $1.currency }
        let count = totals.refunds + totals.familySharingRevocations + totals.debits
        return RefundsReport(from: from, to: to, rows: rows, totals: totals, truncated: count > rows.count)
    }
}
