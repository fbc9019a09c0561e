/// The `receipt` object of a `verifyReceipt` answer, in the iOS 7+ shape or the pre-iOS 7 shape.
///
/// A pre-iOS 7 receipt names the app with `bid` / `bvrs` and carries its one transaction at the top
/// level; that transaction is in `legacyTransaction`.
public struct ReceiptInfo: Codable, Hashable, Sendable {
    /// Raw `receipt_type` (`Production`, `ProductionSandbox`, ...).
    public var receiptType: String?
    /// Apple's `adam_id`.
    public var adamID: Int64?
    /// Apple's `app_item_id`.
    public var appItemID: Int64?
    /// Apple's `bundle_id`.
    public var bundleID: String?
    /// Apple's `application_version`.
    public var applicationVersion: String?
    /// Apple's `download_id`.
    public var downloadID: Int64?
    /// Apple's `version_external_identifier`.
    public var versionExternalIdentifier: Int64?
    /// Apple's `receipt_creation_date_ms`, milliseconds since 1970.
    public var receiptCreationDateMS: Int64?
    /// Apple's `request_date_ms`, milliseconds since 1970.
    public var requestDateMS: Int64?
    /// Apple's `original_purchase_date_ms`, milliseconds since 1970.
    public var originalPurchaseDateMS: Int64?
    /// Apple's `original_application_version`.
    public var originalApplicationVersion: String?
    /// Apple's `preorder_date_ms`, milliseconds since 1970.
    public var preorderDateMS: Int64?
    /// Apple's `expiration_date_ms`, milliseconds since 1970.
    public var expirationDateMS: Int64?
    /// Apple's `in_app`.
    public var inApp: [ReceiptTransactionInfo]
    /// Pre-iOS 7 `bid`.
    public var bid: String?
    /// Pre-iOS 7 `bvrs`.
    public var bvrs: String?
    /// Pre-iOS 7: the transaction fields found at the top level of `receipt`.
    public var legacyTransaction: ReceiptTransactionInfo?

    /// Creates a receipt description.
    public init(
        receiptType: String? = nil, adamID: Int64? = nil, appItemID: Int64? = nil, bundleID: String? = nil,
        applicationVersion: String? = nil, downloadID: Int64? = nil, versionExternalIdentifier: Int64? = nil,
        receiptCreationDateMS: Int64? = nil, requestDateMS: Int64? = nil, originalPurchaseDateMS: Int64? = nil,
        originalApplicationVersion: String? = nil, preorderDateMS: Int64? = nil, expirationDateMS: Int64? = nil,
        inApp: [ReceiptTransactionInfo] = [], bid: String? = nil, bvrs: String? = nil,
        legacyTransaction: ReceiptTransactionInfo? = nil
    ) {
        self.receiptType = receiptType
        self.adamID = adamID
        self.appItemID = appItemID
        self.bundleID = bundleID
        self.applicationVersion = applicationVersion
        self.downloadID = downloadID
        self.versionExternalIdentifier = versionExternalIdentifier
        self.receiptCreationDateMS = receiptCreationDateMS
        self.requestDateMS = requestDateMS
        self.originalPurchaseDateMS = originalPurchaseDateMS
        self.originalApplicationVersion = originalApplicationVersion
        self.preorderDateMS = preorderDateMS
        self.expirationDateMS = expirationDateMS
        self.inApp = inApp
        self.bid = bid
        self.bvrs = bvrs
        self.legacyTransaction = legacyTransaction
    }

    enum CodingKeys: String, CodingKey {
        case receiptType = "receipt_type"
        case adamID = "adam_id"
        case appItemID = "app_item_id"
        case bundleID = "bundle_id"
        case applicationVersion = "application_version"
        case downloadID = "download_id"
        case versionExternalIdentifier = "version_external_identifier"
        case receiptCreationDateMS = "receipt_creation_date_ms"
        case requestDateMS = "request_date_ms"
        case originalPurchaseDateMS = "original_purchase_date_ms"
        case originalApplicationVersion = "original_application_version"
        case preorderDateMS = "preorder_date_ms"
        case expirationDateMS = "expiration_date_ms"
        case inApp = "in_app"
        case bid, bvrs
        case legacyTransaction = "legacy_transaction"
    }

    /// Decodes either shape leniently; never fails for a JSON object.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        receiptType = container.lenientString(.receiptType)
        adamID = container.lenientInt64(.adamID)
        appItemID = container.lenientInt64(.appItemID)
        bundleID = container.lenientString(.bundleID)
        applicationVersion = container.lenientString(.applicationVersion)
        downloadID = container.lenientInt64(.downloadID)
        versionExternalIdentifier = container.lenientInt64(.versionExternalIdentifier)
        receiptCreationDateMS = container.lenientMilliseconds(.receiptCreationDateMS)
        requestDateMS = container.lenientMilliseconds(.requestDateMS)
        originalPurchaseDateMS = container.lenientMilliseconds(.originalPurchaseDateMS)
        originalApplicationVersion = container.lenientString(.originalApplicationVersion)
        preorderDateMS = container.lenientMilliseconds(.preorderDateMS)
        expirationDateMS = container.lenientMilliseconds(.expirationDateMS)
        inApp = container.lenientArray(ReceiptTransactionInfo.self, .inApp)
        bid = container.lenientString(.bid)
        bvrs = container.lenientString(.bvrs)
        // A pre-iOS 7 receipt is itself the transaction: read the same object as a transaction entry.
        let topLevel = try ReceiptTransactionInfo(from: decoder)
        legacyTransaction = topLevel.transactionID == nil ? nil : topLevel
    }
}
