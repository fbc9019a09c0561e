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
    public var environment: AppStoreEnvironment? { rawEnvironment.flatMap(AppStoreEnvironment.init(appleSpelling:)) }
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
    public var environment: AppStoreEnvironment? { rawEnvironment.flatMap(AppStoreEnvironment.init(appleSpelling:)) }

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

/// Apple's `externalPurchaseToken`, sent with `EXTERNAL_PURCHASE_TOKEN` notifications.
public struct ExternalPurchaseToken: Codable, Hashable, Sendable {
    /// Apple's `externalPurchaseId`.
    public var externalPurchaseID: String?
    /// Apple's `tokenCreationDate`, milliseconds since 1970.
    @AppleMilliseconds public var tokenCreationDate: Int64?
    /// Apple's `appAppleId`.
    public var appAppleID: Int64?
    /// Apple's `bundleId`.
    public var bundleID: String?

    /// Sandbox tokens are marked by an id starting with `SANDBOX`; the payload has no environment field.
    public var environment: AppStoreEnvironment {
        (externalPurchaseID?.hasPrefix("SANDBOX") ?? false) ? .sandbox : .production
    }

    /// Creates a token description.
    public init(
        externalPurchaseID: String? = nil, tokenCreationDate: Int64? = nil, appAppleID: Int64? = nil,
        bundleID: String? = nil
    ) {
        self.externalPurchaseID = externalPurchaseID
        self.tokenCreationDate = tokenCreationDate
        self.appAppleID = appAppleID
        self.bundleID = bundleID
    }

    enum CodingKeys: String, CodingKey {
        case externalPurchaseID = "externalPurchaseId"
        case tokenCreationDate
        case appAppleID = "appAppleId"
        case bundleID = "bundleId"
    }
}

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
    public var environment: AppStoreEnvironment? { rawEnvironment.flatMap(AppStoreEnvironment.init(appleSpelling:)) }

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
