/// Apple's monthly plans with a 12-month commitment (iOS 26.5, billing plan `MONTHLY`): the customer pays
/// monthly and is committed for the whole term. Stated only by StoreKit 2 payloads.
public enum BillingPlan {
    /// Apple's billing plan types: `MONTHLY` (committed, billed monthly) and `BILLED_UPFRONT`.
    public static let types: Set<String> = ["MONTHLY", "BILLED_UPFRONT"]

    /// `raw` when it is a billing plan type Apple states, else `nil` (dropped, never a reason to refuse).
    public static func type(_ raw: String?) -> String? {
        guard let raw, types.contains(raw) else { return nil }
        return raw
    }

    /// The plan type that binds the customer for a commitment: `MONTHLY`, billed monthly for 12 months.
    public static let committed = "MONTHLY"

    /// Whether a transaction of plan type `type` is bought on a commitment (its MRR is committed MRR).
    public static func isCommitted(_ type: String?) -> Bool {
        type == committed
    }
}

/// Where a transaction of a commitment plan stands in its commitment (Apple's `TransactionCommitmentInfo`).
public struct TransactionCommitment: Hashable, Sendable, Codable {
    /// Which billing period of the commitment the transaction pays, from 1.
    public var billingPeriodNumber: Int
    /// How many billing periods the commitment has.
    public var totalBillingPeriods: Int
    /// When the commitment ends.
    public var expiresDate: Instant
    /// The whole commitment's price in milli-units of the transaction's currency, when stated.
    public var price: Int64?

    public init(billingPeriodNumber: Int, totalBillingPeriods: Int, expiresDate: Instant, price: Int64? = nil) {
        self.billingPeriodNumber = billingPeriodNumber
        self.totalBillingPeriods = totalBillingPeriods
        self.expiresDate = expiresDate
        self.price = price
    }

    /// The commitment Apple states, checked: periods 1...120 with the number within the total, a date in the
    /// accepted range, a price as `RevenueFieldRules` keeps it; `nil` (dropped) otherwise.
    public static func checked(
        billingPeriodNumber: Int?, totalBillingPeriods: Int?, expiresMilliseconds: Int64?, price: Int64?
    ) -> TransactionCommitment? {
        guard let number = billingPeriodNumber, let total = totalBillingPeriods, (1...120).contains(total),
            (1...total).contains(number), let milliseconds = expiresMilliseconds,
            let expires = Instant(acceptedMillisecondsSince1970: milliseconds)
        else { return nil }
        return TransactionCommitment(
            billingPeriodNumber: number, totalBillingPeriods: total, expiresDate: expires,
            price: RevenueFieldRules.price(price))
    }
}

/// What happens when a commitment ends (Apple's `RenewalCommitmentInfo`).
public struct RenewalCommitment: Hashable, Sendable, Codable {
    /// Whether the commitment renews into a new one (`commitmentAutoRenewStatus` 1).
    public var willAutoRenew: Bool
    /// The product the next commitment is on.
    public var autoRenewProductID: String?
    /// The next commitment's billing plan type.
    public var billingPlanType: String?
    /// When the current commitment ends.
    public var renewalDate: Instant?
    /// The next commitment's price, milli-units.
    public var renewalPrice: Int64?

    public init(
        willAutoRenew: Bool, autoRenewProductID: String? = nil, billingPlanType: String? = nil,
        renewalDate: Instant? = nil, renewalPrice: Int64? = nil
    ) {
        self.willAutoRenew = willAutoRenew
        self.autoRenewProductID = autoRenewProductID
        self.billingPlanType = billingPlanType
        self.renewalDate = renewalDate
        self.renewalPrice = renewalPrice
    }
}
