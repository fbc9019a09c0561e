import SubLedgerCore

/// Apple's notification `appData`, sent with app-level notifications such as `RESCIND_CONSENT`.
public struct NotificationAppData: Codable, Hashable, Sendable {
    /// Apple's `appAppleId`.
    public var appAppleID: Int64?
    /// Apple's `bundleId`.
    public var bundleID: String?
    /// Raw `environment`; see `environment`.
    public var rawEnvironment: String?
    /// A JWS `AppTransaction`, verified separately.
    public var signedAppTransactionInfo: String?

    /// `rawEnvironment` as a typed value; `nil` when absent or a value this code does not know yet.
    public var environment: StoreEnvironment? { rawEnvironment.flatMap(StoreEnvironment.init(appleSpelling:)) }

    /// Creates app data.
    public init(
        appAppleID: Int64? = nil, bundleID: String? = nil, rawEnvironment: String? = nil,
        signedAppTransactionInfo: String? = nil
    ) {
        self.appAppleID = appAppleID
        self.bundleID = bundleID
        self.rawEnvironment = rawEnvironment
        self.signedAppTransactionInfo = signedAppTransactionInfo
    }

    enum CodingKeys: String, CodingKey {
        case appAppleID = "appAppleId"
        case bundleID = "bundleId"
        case rawEnvironment = "environment"
        case signedAppTransactionInfo
    }
}

extension NotificationAppData {
    /// `appData` read from its plain members (see `PlainReadablePayload`), as `JSONDecoder` reads it.
    init(plain members: CapturedJSONObject) throws(CapturedJSONObject.NotPlain) {
        typealias Key = CodingKeys
        self.init(
            appAppleID: try members.int64(Key.appAppleID),
            bundleID: try members.string(Key.bundleID),
            rawEnvironment: try members.string(Key.rawEnvironment),
            signedAppTransactionInfo: try members.string(Key.signedAppTransactionInfo)
        )
    }
}
