/// Apple's legacy version 1 notification body (`responseBodyV1`), decoded leniently.
public struct NotificationV1Payload: Codable, Hashable, Sendable {
    /// Raw `notification_type`; see `notificationType`.
    public var rawNotificationType: String?
    /// The shared secret Apple echoes back; compared in constant time and never logged or re-encoded.
    public var password: String?
    /// Raw `environment`: `PROD` or `Sandbox`.
    public var rawEnvironment: String?
    /// Apple's `auto_renew_adam_id`.
    public var autoRenewAdamID: String?
    /// Apple's `auto_renew_product_id`.
    public var autoRenewProductID: String?
    /// Raw `auto_renew_status`: `"true"` / `"false"`.
    public var autoRenewStatus: Bool?
    /// Apple's `auto_renew_status_change_date_ms`, milliseconds since 1970.
    public var autoRenewStatusChangeDateMS: Int64?
    /// Apple's `expiration_intent`.
    public var rawExpirationIntent: Int?
    /// Apple's `unified_receipt`.
    public var unifiedReceipt: UnifiedReceipt?
    /// Apple's `bid`.
    public var bid: String?
    /// Apple's `bvrs`.
    public var bvrs: String?
    /// Apple's `original_transaction_id`.
    public var originalTransactionID: String?
    /// Apple's `cancellation_date_ms`, milliseconds since 1970.
    public var cancellationDateMS: Int64?
    /// Apple's `web_order_line_item_id`.
    public var webOrderLineItemID: String?

    /// `rawNotificationType` as a typed value; `nil` when absent or a value this code does not know yet.
    public var notificationType: NotificationTypeV1? { rawNotificationType.flatMap(NotificationTypeV1.init(rawValue:)) }

    /// Creates a body.
    public init(
        rawNotificationType: String? = nil, password: String? = nil, rawEnvironment: String? = nil,
        autoRenewAdamID: String? = nil, autoRenewProductID: String? = nil, autoRenewStatus: Bool? = nil,
        autoRenewStatusChangeDateMS: Int64? = nil, rawExpirationIntent: Int? = nil,
        unifiedReceipt: UnifiedReceipt? = nil, bid: String? = nil, bvrs: String? = nil,
        originalTransactionID: String? = nil, cancellationDateMS: Int64? = nil, webOrderLineItemID: String? = nil
    ) {
        self.rawNotificationType = rawNotificationType
        self.password = password
        self.rawEnvironment = rawEnvironment
        self.autoRenewAdamID = autoRenewAdamID
        self.autoRenewProductID = autoRenewProductID
        self.autoRenewStatus = autoRenewStatus
        self.autoRenewStatusChangeDateMS = autoRenewStatusChangeDateMS
        self.rawExpirationIntent = rawExpirationIntent
        self.unifiedReceipt = unifiedReceipt
        self.bid = bid
        self.bvrs = bvrs
        self.originalTransactionID = originalTransactionID
        self.cancellationDateMS = cancellationDateMS
        self.webOrderLineItemID = webOrderLineItemID
    }

    enum CodingKeys: String, CodingKey {
        case rawNotificationType = "notification_type"
        case password
        case rawEnvironment = "environment"
        case autoRenewAdamID = "auto_renew_adam_id"
        case autoRenewProductID = "auto_renew_product_id"
        case autoRenewStatus = "auto_renew_status"
        case autoRenewStatusChangeDateMS = "auto_renew_status_change_date_ms"
        case rawExpirationIntent = "expiration_intent"
        case unifiedReceipt = "unified_receipt"
        case bid, bvrs
        case originalTransactionID = "original_transaction_id"
        case cancellationDateMS = "cancellation_date_ms"
        case webOrderLineItemID = "web_order_line_item_id"
    }

    /// Decodes leniently; never fails for a JSON object.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        rawNotificationType = container.lenientString(.rawNotificationType)
        password = container.lenientString(.password)
        rawEnvironment = container.lenientString(.rawEnvironment)
        autoRenewAdamID = container.lenientString(.autoRenewAdamID)
        autoRenewProductID = container.lenientString(.autoRenewProductID)
        autoRenewStatus = container.lenientBool(.autoRenewStatus)
        autoRenewStatusChangeDateMS = container.lenientMilliseconds(.autoRenewStatusChangeDateMS)
        rawExpirationIntent = container.lenientInt(.rawExpirationIntent)
        unifiedReceipt = try? container.decodeIfPresent(UnifiedReceipt.self, forKey: .unifiedReceipt)
        bid = container.lenientString(.bid)
        bvrs = container.lenientString(.bvrs)
        originalTransactionID = container.lenientString(.originalTransactionID)
        cancellationDateMS = container.lenientMilliseconds(.cancellationDateMS)
        webOrderLineItemID = container.lenientString(.webOrderLineItemID)
    }

    /// Encodes every field except `password`, so a re-encoded body never carries the shared secret.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(rawNotificationType, forKey: .rawNotificationType)
        try container.encodeIfPresent(rawEnvironment, forKey: .rawEnvironment)
        try container.encodeIfPresent(autoRenewAdamID, forKey: .autoRenewAdamID)
        try container.encodeIfPresent(autoRenewProductID, forKey: .autoRenewProductID)
        try container.encodeIfPresent(autoRenewStatus, forKey: .autoRenewStatus)
        try container.encodeIfPresent(autoRenewStatusChangeDateMS, forKey: .autoRenewStatusChangeDateMS)
        try container.encodeIfPresent(rawExpirationIntent, forKey: .rawExpirationIntent)
        try container.encodeIfPresent(unifiedReceipt, forKey: .unifiedReceipt)
        try container.encodeIfPresent(bid, forKey: .bid)
        try container.encodeIfPresent(bvrs, forKey: .bvrs)
        try container.encodeIfPresent(originalTransactionID, forKey: .originalTransactionID)
        try container.encodeIfPresent(cancellationDateMS, forKey: .cancellationDateMS)
        try container.encodeIfPresent(webOrderLineItemID, forKey: .webOrderLineItemID)
    }
}
