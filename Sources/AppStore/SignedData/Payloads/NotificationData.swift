import SubLedgerCore

/// Apple's notification `data`: the app, and the signed transaction and renewal info the event concerns.
public struct NotificationData: Codable, Hashable, Sendable {
    /// Raw `environment`; see `environment`.
    public var rawEnvironment: String?
    /// Apple's `appAppleId`.
    public var appAppleID: Int64?
    /// Apple's `bundleId`.
    public var bundleID: String?
    /// Apple's `bundleVersion`.
    public var bundleVersion: String?
    /// A JWS `JWSTransactionDecodedPayload`, verified separately.
    public var signedTransactionInfo: String?
    /// A JWS `JWSRenewalInfoDecodedPayload`, verified separately.
    public var signedRenewalInfo: String?
    /// Raw subscription `status`; see `status`.
    public var rawStatus: Int?
    /// Raw `consumptionRequestReason` of `CONSUMPTION_REQUEST` notifications.
    public var rawConsumptionRequestReason: String?

    /// `rawEnvironment` as a typed value; `nil` when absent or a value this code does not know yet.
    public var environment: StoreEnvironment? { rawEnvironment.flatMap(StoreEnvironment.init(appleSpelling:)) }
    /// `rawStatus` as a typed value; `nil` when absent or a value this code does not know yet.
    public var status: SubscriptionStatus? { rawStatus.flatMap(SubscriptionStatus.init(rawValue:)) }

    /// Creates notification data.
    public init(
        rawEnvironment: String? = nil, appAppleID: Int64? = nil, bundleID: String? = nil, bundleVersion: String? = nil,
        signedTransactionInfo: String? = nil, signedRenewalInfo: String? = nil, rawStatus: Int? = nil,
        rawConsumptionRequestReason: String? = nil
    ) {
        self.rawEnvironment = rawEnvironment
        self.appAppleID = appAppleID
        self.bundleID = bundleID
        self.bundleVersion = bundleVersion
        self.signedTransactionInfo = signedTransactionInfo
        self.signedRenewalInfo = signedRenewalInfo
        self.rawStatus = rawStatus
        self.rawConsumptionRequestReason = rawConsumptionRequestReason
    }

    enum CodingKeys: String, CodingKey {
        case rawEnvironment = "environment"
        case appAppleID = "appAppleId"
        case bundleID = "bundleId"
        case bundleVersion, signedTransactionInfo, signedRenewalInfo
        case rawStatus = "status"
        case rawConsumptionRequestReason = "consumptionRequestReason"
    }
}

extension NotificationData {
    /// `data` read from its plain members (see `PlainReadablePayload`), as `JSONDecoder` reads it.
    init(plain members: CapturedJSONObject) throws(CapturedJSONObject.NotPlain) {
        typealias Key = CodingKeys
        self.init(
            rawEnvironment: try members.string(Key.rawEnvironment),
            appAppleID: try members.int64(Key.appAppleID),
            bundleID: try members.string(Key.bundleID),
            bundleVersion: try members.string(Key.bundleVersion),
            signedTransactionInfo: try members.string(Key.signedTransactionInfo),
            signedRenewalInfo: try members.string(Key.signedRenewalInfo),
            rawStatus: try members.int(Key.rawStatus),
            rawConsumptionRequestReason: try members.string(Key.rawConsumptionRequestReason)
        )
    }
}
