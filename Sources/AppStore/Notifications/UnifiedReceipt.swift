/// The `unified_receipt` of a V1 notification: the same lists a `verifyReceipt` answer carries.
public struct UnifiedReceipt: Codable, Hashable, Sendable {
    /// Apple's `status`.
    public var status: Int?
    /// Raw `environment`: `Production` or `Sandbox`.
    public var rawEnvironment: String?
    /// Apple's `latest_receipt`.
    public var latestReceipt: String?
    /// Apple's `latest_receipt_info`.
    public var latestReceiptInfo: [ReceiptTransactionInfo]
    /// Apple's `pending_renewal_info`.
    public var pendingRenewalInfo: [PendingRenewalInfo]

    /// Creates a unified receipt.
    public init(
        status: Int? = nil, rawEnvironment: String? = nil, latestReceipt: String? = nil,
        latestReceiptInfo: [ReceiptTransactionInfo] = [], pendingRenewalInfo: [PendingRenewalInfo] = []
    ) {
        self.status = status
        self.rawEnvironment = rawEnvironment
        self.latestReceipt = latestReceipt
        self.latestReceiptInfo = latestReceiptInfo
        self.pendingRenewalInfo = pendingRenewalInfo
    }

    enum CodingKeys: String, CodingKey {
        case status
        case rawEnvironment = "environment"
        case latestReceipt = "latest_receipt"
        case latestReceiptInfo = "latest_receipt_info"
        case pendingRenewalInfo = "pending_renewal_info"
    }

    /// Decodes leniently; never fails for a JSON object.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        status = container.lenientInt(.status)
        rawEnvironment = container.lenientString(.rawEnvironment)
        latestReceipt = container.lenientString(.latestReceipt)
        latestReceiptInfo = container.lenientArray(ReceiptTransactionInfo.self, .latestReceiptInfo)
        pendingRenewalInfo = container.lenientArray(PendingRenewalInfo.self, .pendingRenewalInfo)
    }
}
