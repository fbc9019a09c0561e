import SubLedgerCore

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
    public var environment: StoreEnvironment {
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
