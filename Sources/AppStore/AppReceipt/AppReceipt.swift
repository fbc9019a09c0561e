import SubLedgerCore

/// What an app's on-device receipt (PKCS#7 with Apple's ASN.1 attribute SET) states.
public struct AppReceipt: Codable, Hashable, Sendable {
    /// Attribute 0: `Production`, `ProductionSandbox`, `Xcode`, ...
    public var receiptType: String?
    /// Attribute 2.
    public var bundleID: String?
    /// Attribute 3.
    public var applicationVersion: String?
    /// Attribute 19.
    public var originalApplicationVersion: String?
    /// Attribute 12, milliseconds since 1970.
    public var creationDate: Int64?
    /// Attribute 21, milliseconds since 1970 (volume purchase receipts).
    public var expirationDate: Int64?
    /// Attribute 17 entries.
    public var inAppPurchases: [AppReceiptInAppPurchase]

    /// The environment the receipt type names (`ProductionSandbox` is the sandbox).
    public var environment: StoreEnvironment? { receiptType.flatMap(StoreEnvironment.init(appleSpelling:)) }

    /// Every transaction and original transaction id, first occurrence order, without repeats:
    /// the ids to query the App Store Server API with.
    public var transactionIDs: [String] {
        var seen: Set<String> = []
        var ids: [String] = []
        for purchase in inAppPurchases {
            for id in [purchase.originalTransactionID, purchase.transactionID].compactMap({ $0 }) where !id.isEmpty {
                if seen.insert(id).inserted { ids.append(id) }
            }
        }
        return ids
    }

    /// Creates a receipt description.
    public init(
        receiptType: String? = nil, bundleID: String? = nil, applicationVersion: String? = nil,
        originalApplicationVersion: String? = nil, creationDate: Int64? = nil, expirationDate: Int64? = nil,
        inAppPurchases: [AppReceiptInAppPurchase] = []
    ) {
        self.receiptType = receiptType
        self.bundleID = bundleID
        self.applicationVersion = applicationVersion
        self.originalApplicationVersion = originalApplicationVersion
        self.creationDate = creationDate
        self.expirationDate = expirationDate
        self.inAppPurchases = inAppPurchases
    }
}
