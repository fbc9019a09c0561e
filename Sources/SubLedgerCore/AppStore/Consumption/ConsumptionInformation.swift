/// What SubLedger tells Apple about one refund request, before it is spelled as either version's request body.
///
/// The V2 fields (`customerConsented`, `sampleContentProvided`, `deliveryStatus`, `consumptionMilliunits`,
/// `refundPreference`) are Apple's current request; the V1 buckets are only sent to the older endpoint.
public struct ConsumptionInformation: Hashable, Sendable, Codable {
    /// Always `true`: nothing is computed without recorded consent (Apple refuses anything else).
    public var customerConsented: Bool
    public var sampleContentProvided: Bool
    public var deliveryStatus: ConsumptionDeliveryStatus
    /// V2 `consumptionPercentage` in milliunits (0...100 000); `nil` leaves it out (auto-renewables, where
    /// Apple computes it, or when the app never reported consumption).
    public var consumptionMilliunits: Int?
    public var refundPreference: ConsumptionRefundPreference
    /// V1 `accountTenure`, 0 (undeclared) to 7 (over 365 days).
    public var accountTenure: Int
    /// V1 `appAccountToken`: the purchase's UUID, or empty when it had none.
    public var appAccountToken: String
    /// V1 `consumptionStatus`: 0 undeclared, 1 not consumed, 2 partially, 3 fully consumed.
    public var consumptionStatus: Int
    /// V1 `lifetimeDollarsPurchased`, 0 (undeclared) to 7 (over 2000 USD).
    public var lifetimeDollarsPurchased: Int
    /// V1 `lifetimeDollarsRefunded`, 0 (undeclared) to 7 (over 2000 USD).
    public var lifetimeDollarsRefunded: Int
    /// V1 `platform`: 1 (Apple) for every purchase SubLedger knows.
    public var platform: Int
    /// V1 `playTime`, 0 (undeclared) to 7 (over 16 days).
    public var playTime: Int
    /// V1 `userStatus`: 1 (active) when the account is known, else 0 (undeclared).
    public var userStatus: Int

    public init(
        customerConsented: Bool, sampleContentProvided: Bool, deliveryStatus: ConsumptionDeliveryStatus,
        consumptionMilliunits: Int?, refundPreference: ConsumptionRefundPreference, accountTenure: Int,
        appAccountToken: String, consumptionStatus: Int, lifetimeDollarsPurchased: Int, lifetimeDollarsRefunded: Int,
        platform: Int, playTime: Int, userStatus: Int
    ) {
        self.customerConsented = customerConsented
        self.sampleContentProvided = sampleContentProvided
        self.deliveryStatus = deliveryStatus
        self.consumptionMilliunits = consumptionMilliunits
        self.refundPreference = refundPreference
        self.accountTenure = accountTenure
        self.appAccountToken = appAccountToken
        self.consumptionStatus = consumptionStatus
        self.lifetimeDollarsPurchased = lifetimeDollarsPurchased
        self.lifetimeDollarsRefunded = lifetimeDollarsRefunded
        self.platform = platform
        self.playTime = playTime
        self.userStatus = userStatus
    }
}
