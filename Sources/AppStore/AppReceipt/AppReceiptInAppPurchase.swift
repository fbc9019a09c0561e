import SubLedgerCore

/// One in-app purchase entry (attribute 17) of an app receipt.
public struct AppReceiptInAppPurchase: Codable, Hashable, Sendable {
    /// 1701.
    public var quantity: Int64?
    /// 1702.
    public var productID: String?
    /// 1703.
    public var transactionID: String?
    /// 1705.
    public var originalTransactionID: String?
    /// 1704, milliseconds since 1970.
    public var purchaseDate: Int64?
    /// 1706, milliseconds since 1970.
    public var originalPurchaseDate: Int64?
    /// 1708, milliseconds since 1970.
    public var expiresDate: Int64?
    /// 1711.
    public var webOrderLineItemID: Int64?
    /// 1712, milliseconds since 1970.
    public var cancellationDate: Int64?
    /// 1719.
    public var isInIntroOfferPeriod: Bool?

    /// Creates an entry.
    public init(
        quantity: Int64? = nil, productID: String? = nil, transactionID: String? = nil,
        originalTransactionID: String? = nil, purchaseDate: Int64? = nil, originalPurchaseDate: Int64? = nil,
        expiresDate: Int64? = nil, webOrderLineItemID: Int64? = nil, cancellationDate: Int64? = nil,
        isInIntroOfferPeriod: Bool? = nil
    ) {
        self.quantity = quantity
        self.productID = productID
        self.transactionID = transactionID
        self.originalTransactionID = originalTransactionID
        self.purchaseDate = purchaseDate
        self.originalPurchaseDate = originalPurchaseDate
        self.expiresDate = expiresDate
        self.webOrderLineItemID = webOrderLineItemID
        self.cancellationDate = cancellationDate
        self.isInIntroOfferPeriod = isInIntroOfferPeriod
    }
}
