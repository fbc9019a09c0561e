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
    public var environment: StoreEnvironment? { rawReceiptType.flatMap(StoreEnvironment.init(appleSpelling:)) }

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

    /// What Xcode's StoreKit testing signs as `originalPurchaseDate` when there is none: two days before
    /// 0001-01-01 (Swift's `Date.distantPast`), outside the dates accepted elsewhere. Read as absent, for the
    /// `Xcode` receipt type only.
    public static let xcodeAbsentOriginalPurchaseDate: Int64 = -62_135_769_600_000

    /// Decodes Apple's fields as any payload's; `originalPurchaseDate` of an `Xcode` app transaction may be
    /// `xcodeAbsentOriginalPurchaseDate`, read as absent.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        rawReceiptType = try container.decodeIfPresent(String.self, forKey: .rawReceiptType)
        appAppleID = try container.decodeIfPresent(Int64.self, forKey: .appAppleID)
        bundleID = try container.decodeIfPresent(String.self, forKey: .bundleID)
        applicationVersion = try container.decodeIfPresent(String.self, forKey: .applicationVersion)
        versionExternalIdentifier = try container.decodeIfPresent(Int64.self, forKey: .versionExternalIdentifier)
        _receiptCreationDate = try container.decode(AppleMilliseconds.self, forKey: .receiptCreationDate)
        if rawReceiptType == StoreEnvironment.xcode.rawValue,
            (try? container.decodeIfPresent(Int64.self, forKey: .originalPurchaseDate))
                == Self.xcodeAbsentOriginalPurchaseDate
        {
            _originalPurchaseDate = AppleMilliseconds(wrappedValue: nil)
        } else {
            _originalPurchaseDate = try container.decode(AppleMilliseconds.self, forKey: .originalPurchaseDate)
        }
        originalApplicationVersion = try container.decodeIfPresent(String.self, forKey: .originalApplicationVersion)
        deviceVerification = try container.decodeIfPresent(String.self, forKey: .deviceVerification)
        deviceVerificationNonce = try container.decodeIfPresent(String.self, forKey: .deviceVerificationNonce)
        _preorderDate = try container.decode(AppleMilliseconds.self, forKey: .preorderDate)
        appTransactionID = try container.decodeIfPresent(String.self, forKey: .appTransactionID)
        rawOriginalPlatform = try container.decodeIfPresent(String.self, forKey: .rawOriginalPlatform)
        _signedDate = try container.decode(AppleMilliseconds.self, forKey: .signedDate)
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
