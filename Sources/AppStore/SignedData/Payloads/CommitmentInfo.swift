/// Apple's `TransactionCommitmentInfo` (App Store Server API 1.21): where a transaction of a monthly plan with a
/// 12-month commitment (iOS 26.5, `billingPlanType` `MONTHLY`) stands in its commitment.
public struct TransactionCommitmentInfo: Codable, Hashable, Sendable {
    /// Which billing period of the commitment this transaction pays (1 for the first).
    public var billingPeriodNumber: Int?
    /// How many billing periods the commitment has (12 for a 12-month commitment billed monthly).
    public var totalBillingPeriods: Int?
    /// Apple's `commitmentExpiresDate`: when the commitment ends, milliseconds since 1970.
    @AppleMilliseconds public var commitmentExpiresDate: Int64?
    /// Apple's `commitmentPrice`: the whole commitment's price, in milli-units of the transaction's currency.
    public var commitmentPrice: Int64?

    public init(
        billingPeriodNumber: Int? = nil, totalBillingPeriods: Int? = nil, commitmentExpiresDate: Int64? = nil,
        commitmentPrice: Int64? = nil
    ) {
        self.billingPeriodNumber = billingPeriodNumber
        self.totalBillingPeriods = totalBillingPeriods
        self.commitmentExpiresDate = commitmentExpiresDate
        self.commitmentPrice = commitmentPrice
    }
}

/// Apple's `RenewalCommitmentInfo` (App Store Server API 1.21): what happens when a commitment ends: whether
/// it renews into a new commitment, on which product and plan, when and at what price.
public struct RenewalCommitmentInfo: Codable, Hashable, Sendable {
    /// Apple's `commitmentAutoRenewProductId`.
    public var commitmentAutoRenewProductID: String?
    /// Apple's `commitmentAutoRenewStatus`, raw: 1 the commitment renews, 0 it ends at `commitmentRenewalDate`.
    public var rawCommitmentAutoRenewStatus: Int?
    /// Apple's `commitmentRenewalBillingPlanType` (`MONTHLY`, `BILLED_UPFRONT`), raw.
    public var rawCommitmentRenewalBillingPlanType: String?
    /// Apple's `commitmentRenewalDate`: when the commitment ends and would renew, milliseconds since 1970.
    @AppleMilliseconds public var commitmentRenewalDate: Int64?
    /// Apple's `commitmentRenewalPrice`, in milli-units.
    public var commitmentRenewalPrice: Int64?

    public init(
        commitmentAutoRenewProductID: String? = nil, rawCommitmentAutoRenewStatus: Int? = nil,
        rawCommitmentRenewalBillingPlanType: String? = nil, commitmentRenewalDate: Int64? = nil,
        commitmentRenewalPrice: Int64? = nil
    ) {
        self.commitmentAutoRenewProductID = commitmentAutoRenewProductID
        self.rawCommitmentAutoRenewStatus = rawCommitmentAutoRenewStatus
        self.rawCommitmentRenewalBillingPlanType = rawCommitmentRenewalBillingPlanType
        self.commitmentRenewalDate = commitmentRenewalDate
        self.commitmentRenewalPrice = commitmentRenewalPrice
    }

    enum CodingKeys: String, CodingKey {
        case commitmentAutoRenewProductID = "commitmentAutoRenewProductId"
        case rawCommitmentAutoRenewStatus = "commitmentAutoRenewStatus"
        case rawCommitmentRenewalBillingPlanType = "commitmentRenewalBillingPlanType"
        case commitmentRenewalDate, commitmentRenewalPrice
    }
}

extension TransactionCommitmentInfo {
    /// `commitmentInfo` read from its plain members (see `PlainReadablePayload`), as `JSONDecoder` reads it.
    init(plain members: CapturedJSONObject) throws(CapturedJSONObject.NotPlain) {
        typealias Key = CodingKeys
        self.init(
            billingPeriodNumber: try members.int(Key.billingPeriodNumber),
            totalBillingPeriods: try members.int(Key.totalBillingPeriods),
            commitmentExpiresDate: try members.milliseconds(Key.commitmentExpiresDate),
            commitmentPrice: try members.int64(Key.commitmentPrice)
        )
    }
}

extension RenewalCommitmentInfo {
    /// `commitmentInfo` read from its plain members (see `PlainReadablePayload`), as `JSONDecoder` reads it.
    init(plain members: CapturedJSONObject) throws(CapturedJSONObject.NotPlain) {
        typealias Key = CodingKeys
        self.init(
            commitmentAutoRenewProductID: try members.string(Key.commitmentAutoRenewProductID),
            rawCommitmentAutoRenewStatus: try members.int(Key.rawCommitmentAutoRenewStatus),
            rawCommitmentRenewalBillingPlanType: try members.string(Key.rawCommitmentRenewalBillingPlanType),
            commitmentRenewalDate: try members.milliseconds(Key.commitmentRenewalDate),
            commitmentRenewalPrice: try members.int64(Key.commitmentRenewalPrice)
        )
    }
}
