import SubLedgerCore

/// Apple's notification `summary`, sent with `RENEWAL_EXTENSION` / `SUMMARY` after a mass renewal-date extension.
public struct NotificationSummary: Codable, Hashable, Sendable {
    /// Raw `environment`; see `environment`.
    public var rawEnvironment: String?
    /// Apple's `appAppleId`.
    public var appAppleID: Int64?
    /// Apple's `bundleId`.
    public var bundleID: String?
    /// Apple's `productId`.
    public var productID: String?
    /// Apple's `requestIdentifier`.
    public var requestIdentifier: String?
    /// Apple's `storefrontCountryCodes`.
    public var storefrontCountryCodes: [String]?
    /// Apple's `succeededCount`.
    public var succeededCount: Int64?
    /// Apple's `failedCount`.
    public var failedCount: Int64?

    /// `rawEnvironment` as a typed value; `nil` when absent or a value this code does not know yet.
    public var environment: StoreEnvironment? { rawEnvironment.flatMap(StoreEnvironment.init(appleSpelling:)) }

    /// Creates a summary.
    public init(
        rawEnvironment: String? = nil, appAppleID: Int64? = nil, bundleID: String? = nil, productID: String? = nil,
        requestIdentifier: String? = nil, storefrontCountryCodes: [String]? = nil, succeededCount: Int64? = nil,
        failedCount: Int64? = nil
    ) {
        self.rawEnvironment = rawEnvironment
        self.appAppleID = appAppleID
        self.bundleID = bundleID
        self.productID = productID
        self.requestIdentifier = requestIdentifier
        self.storefrontCountryCodes = storefrontCountryCodes
        self.succeededCount = succeededCount
        self.failedCount = failedCount
    }

    enum CodingKeys: String, CodingKey {
        case rawEnvironment = "environment"
        case appAppleID = "appAppleId"
        case bundleID = "bundleId"
        case productID = "productId"
        case requestIdentifier, storefrontCountryCodes, succeededCount, failedCount
    }
}

extension NotificationSummary {
    /// `summary` read from its plain members (see `PlainReadablePayload`), as `JSONDecoder` reads it.
    init(plain members: CapturedJSONObject) throws(CapturedJSONObject.NotPlain) {
        typealias Key = CodingKeys
        self.init(
            rawEnvironment: try members.string(Key.rawEnvironment),
            appAppleID: try members.int64(Key.appAppleID),
            bundleID: try members.string(Key.bundleID),
            productID: try members.string(Key.productID),
            requestIdentifier: try members.string(Key.requestIdentifier),
            storefrontCountryCodes: try members.strings(Key.storefrontCountryCodes),
            succeededCount: try members.int64(Key.succeededCount),
            failedCount: try members.int64(Key.failedCount)
        )
    }
}
