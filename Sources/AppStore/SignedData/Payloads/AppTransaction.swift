import SubLedgerCore

/// Apple's `AppTransaction`: the signed record of the customer's purchase or download of the app itself.
public struct AppTransaction: Codable, Hashable, Sendable {
    /// Raw `receiptType` (`Production`, `Sandbox`, `Xcode`, ...); see `environment`.
    public var rawReceiptType: String?
    /// Apple's `appAppleId`.
    public var appAppleID: Int64?
    /// Apple's `bundleId`.
    public var bundleID: String?
    /// Apple's `applicationVersion`.
    public var applicationVersion: String?
    /// Apple's `versionExternalIdentifier`.
    public var versionExternalIdentifier: Int64?
    /// Apple's `receiptCreationDate`, milliseconds since 1970.
    @AppleMilliseconds public var receiptCreationDate: Int64?
    /// Apple's `originalPurchaseDate`, milliseconds since 1970.
    @AppleMilliseconds public var originalPurchaseDate: Int64?
    /// Apple's `originalApplicationVersion`.
    public var originalApplicationVersion: String?
    /// Apple's `deviceVerification`.
    public var deviceVerification: String?
    /// Apple's `deviceVerificationNonce`.
    public var deviceVerificationNonce: String?
    /// Apple's `preorderDate`, milliseconds since 1970.
    @AppleMilliseconds public var preorderDate: Int64?
    /// Apple's `appTransactionId`.
    public var appTransactionID: String?
    /// Raw `originalPlatform` (`iOS`, `macOS`, `tvOS`, `visionOS`).
    public var rawOriginalPlatform: String?
    /// Apple's `signedDate`, milliseconds since 1970.
    @AppleMilliseconds public var signedDate: Int64?

    /// The environment the receipt type names.
    public var environment: AppStoreEnvironment? { rawReceiptType.flatMap(AppStoreEnvironment.init(appleSpelling:)) }

    /// Creates a payload; every field is optional as in Apple's schema.
    public init(
        rawReceiptType: String? = nil, appAppleID: Int64? = nil, bundleID: String? = nil,
        applicationVersion: String? = nil, versionExternalIdentifier: Int64? = nil, receiptCreationDate: Int64? = nil,
        originalPurchaseDate: Int64? = nil, originalApplicationVersion: String? = nil,
        deviceVerification: String? = nil, deviceVerificationNonce: String? = nil, preorderDate: Int64? = nil,
        appTransactionID: String? = nil, rawOriginalPlatform: String? = nil, signedDate: Int64? = nil
    ) {
        self.rawReceiptType = rawReceiptType
        self.appAppleID = appAppleID
        self.bundleID = bundleID
        self.applicationVersion = applicationVersion
        self.versionExternalIdentifier = versionExternalIdentifier
        self.receiptCreationDate = receiptCreationDate
        self.originalPurchaseDate = originalPurchaseDate
        self.originalApplicationVersion = originalApplicationVersion
        self.deviceVerification = deviceVerification
        self.deviceVerificationNonce = deviceVerificationNonce
        self.preorderDate = preorderDate
        self.appTransactionID = appTransactionID
        self.rawOriginalPlatform = rawOriginalPlatform
        self.signedDate = signedDate
    }

    enum CodingKeys: String, CodingKey {
        case rawReceiptType = "receiptType"
        case appAppleID = "appAppleId"
        case bundleID = "bundleId"
        case applicationVersion, versionExternalIdentifier, receiptCreationDate, originalPurchaseDate
        case originalApplicationVersion, deviceVerification, deviceVerificationNonce, preorderDate
        case appTransactionID = "appTransactionId"
        case rawOriginalPlatform = "originalPlatform"
        case signedDate
    }
}
