import SubLedgerCore

/// The body of Send Consumption Information V1 (`PUT /inApps/v1/transactions/consumption/{transactionId}`),
/// Apple's `ConsumptionRequestV1`: every field required, most of them integer buckets where `0` means undeclared.
public struct ConsumptionRequestV1: Codable, Hashable, Sendable {
    /// 0 undeclared, 1 0-3 days, 2 3-10, 3 10-30, 4 30-90, 5 90-180, 6 180-365, 7 over 365 days.
    public var accountTenure: Int
    /// The purchase's app account token (a UUID), or an empty string.
    public var appAccountToken: String
    /// 0 undeclared, 1 not consumed, 2 partially consumed, 3 fully consumed.
    public var consumptionStatus: Int
    public var customerConsented: Bool
    /// 0 delivered and working, 1 quality issue, 2 wrong item, 3 server outage, 4 in-game currency change, 5 other.
    public var deliveryStatus: Int
    /// 0 undeclared, 1 0 USD, 2 0.01-49.99, 3 50-99.99, 4 100-499.99, 5 500-999.99, 6 1000-1999.99, 7 over 2000.
    public var lifetimeDollarsPurchased: Int
    /// The same buckets as `lifetimeDollarsPurchased`.
    public var lifetimeDollarsRefunded: Int
    /// 0 undeclared, 1 Apple platform, 2 non-Apple platform.
    public var platform: Int
    /// 0 undeclared, 1 0-5 minutes, 2 5-60 minutes, 3 1-6 hours, 4 6-24 hours, 5 1-4 days, 6 4-16 days, 7 over 16 days.
    public var playTime: Int
    /// 0 undeclared, 1 prefer grant, 2 prefer decline, 3 no preference.
    public var refundPreference: Int
    public var sampleContentProvided: Bool
    /// 0 undeclared, 1 active, 2 suspended, 3 terminated, 4 limited access.
    public var userStatus: Int

    public init(
        accountTenure: Int, appAccountToken: String, consumptionStatus: Int, customerConsented: Bool,
        deliveryStatus: Int, lifetimeDollarsPurchased: Int, lifetimeDollarsRefunded: Int, platform: Int, playTime: Int,
        refundPreference: Int, sampleContentProvided: Bool, userStatus: Int
    ) {
        self.accountTenure = accountTenure
        self.appAccountToken = appAccountToken
        self.consumptionStatus = consumptionStatus
        self.customerConsented = customerConsented
        self.deliveryStatus = deliveryStatus
        self.lifetimeDollarsPurchased = lifetimeDollarsPurchased
        self.lifetimeDollarsRefunded = lifetimeDollarsRefunded
        self.platform = platform
        self.playTime = playTime
        self.refundPreference = refundPreference
        self.sampleContentProvided = sampleContentProvided
        self.userStatus = userStatus
    }

    /// Spells SubLedger's answer as the older request.
    public init(_ information: ConsumptionInformation) {
        self.init(
            accountTenure: information.accountTenure,
            appAccountToken: information.appAccountToken,
            consumptionStatus: information.consumptionStatus,
            customerConsented: information.customerConsented,
            deliveryStatus: Self.code(information.deliveryStatus),
            lifetimeDollarsPurchased: information.lifetimeDollarsPurchased,
            lifetimeDollarsRefunded: information.lifetimeDollarsRefunded,
            platform: information.platform,
            playTime: information.playTime,
            refundPreference: Self.code(information.refundPreference),
            sampleContentProvided: information.sampleContentProvided,
            userStatus: information.userStatus)
    }

    /// Apple's V1 `deliveryStatus` code (4, an in-game currency change, is never sent).
    public static func code(_ status: ConsumptionDeliveryStatus) -> Int {
        switch status {
        case .delivered: 0
        case .undeliveredQualityIssue: 1
        case .undeliveredWrongItem: 2
        case .undeliveredServerOutage: 3
        case .undeliveredOther: 5
        }
    }

    /// Apple's V1 `refundPreference` code.
    public static func code(_ preference: ConsumptionRefundPreference) -> Int {
        switch preference {
        case .grant: 1
        case .decline: 2
        // V1 has no prorated refund, and the catalog refuses it with the V1 endpoint: undeclared, should it
        // ever get here.
        case .grantProrated: 0
        case .noPreference: 3
        }
    }
}
