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
    /// Raw `tokenType` (`ACQUISITION`, `SERVICES`, ...), present only in custom link tokens; see `tokenType`.
    public var rawTokenType: String?

    /// `rawTokenType` as a typed value; `nil` when absent or a value this code does not know yet.
    public var tokenType: ExternalPurchaseTokenType? { rawTokenType.flatMap(ExternalPurchaseTokenType.init(rawValue:)) }

    /// Sandbox tokens are marked by an id starting with `SANDBOX`; the payload has no environment field.
    public var environment: StoreEnvironment {
        (externalPurchaseID?.hasPrefix("SANDBOX") ?? false) ? .sandbox : .production
    }

    /// Creates a token description.
    public init(
        externalPurchaseID: String? = nil, tokenCreationDate: Int64? = nil, appAppleID: Int64? = nil,
        bundleID: String? = nil, rawTokenType: String? = nil
    ) {
        self.externalPurchaseID = externalPurchaseID
        self.tokenCreationDate = tokenCreationDate
        self.appAppleID = appAppleID
        self.bundleID = bundleID
        self.rawTokenType = rawTokenType
    }

    enum CodingKeys: String, CodingKey {
        case externalPurchaseID = "externalPurchaseId"
        case tokenCreationDate
        case appAppleID = "appAppleId"
        case bundleID = "bundleId"
        case rawTokenType = "tokenType"
    }
}

extension ExternalPurchaseToken {
    /// `externalPurchaseToken` read from its plain members (see `PlainReadablePayload`), as `JSONDecoder` reads it.
    init(plain members: CapturedJSONObject) throws(CapturedJSONObject.NotPlain) {
        typealias Key = CodingKeys
        self.init(
            externalPurchaseID: try members.string(Key.externalPurchaseID),
            tokenCreationDate: try members.milliseconds(Key.tokenCreationDate),
            appAppleID: try members.int64(Key.appAppleID),
            bundleID: try members.string(Key.bundleID),
            rawTokenType: try members.string(Key.rawTokenType)
        )
    }
}

/// Apple's `tokenType` of a custom link token (StoreKit's `ExternalPurchaseCustomLink.token(for:)`).
public enum ExternalPurchaseTokenType: String, Codable, Hashable, Sendable, CaseIterable {
    /// EU: a customer new to the developer's offers outside the app.
    case acquisition = "ACQUISITION"
    /// EU: services for a customer the developer already has.
    case services = "SERVICES"
    /// Japan: a purchase through a payment provider inside the app.
    case inApp = "IN_APP"
    /// Japan: a purchase on the developer's website, linked out to.
    case linkOut = "LINK_OUT"
}
