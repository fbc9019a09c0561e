/// The body of Get Notification History.
public struct NotificationHistoryRequest: Codable, Hashable, Sendable {
    /// Start of the period, milliseconds since 1970 (Apple keeps 180 days).
    public var startDate: Int64
    /// End of the period, milliseconds since 1970.
    public var endDate: Int64
    /// Raw notification type filter.
    public var notificationType: String?
    /// Raw notification subtype filter.
    public var notificationSubtype: String?
    /// Only notifications about this transaction's chain.
    public var transactionID: String?
    /// Only notifications that were never delivered successfully.
    public var onlyFailures: Bool?

    /// Creates a request.
    public init(
        startDate: Int64, endDate: Int64, notificationType: String? = nil, notificationSubtype: String? = nil,
        transactionID: String? = nil, onlyFailures: Bool? = nil
    ) {
        self.startDate = startDate
        self.endDate = endDate
        self.notificationType = notificationType
        self.notificationSubtype = notificationSubtype
        self.transactionID = transactionID
        self.onlyFailures = onlyFailures
    }

    enum CodingKeys: String, CodingKey {
        case startDate, endDate, notificationType, notificationSubtype
        case transactionID = "transactionId"
        case onlyFailures
    }
}
