/// How notifications are delivered; changed through the control API.
public struct NotificationSettings: Sendable, Codable, Hashable {
    /// Used for apps without their own notification URL.
    public var defaultURL: String?
    /// Post every notification twice (same UUID), as Apple occasionally does.
    public var duplicate: Bool
    /// Hold each notification until the next one is created, then send the newer one first.
    public var outOfOrder: Bool

    /// Creates settings.
    public init(defaultURL: String? = nil, duplicate: Bool = false, outOfOrder: Bool = false) {
        self.defaultURL = defaultURL
        self.duplicate = duplicate
        self.outOfOrder = outOfOrder
    }
}

/// Apple's retry schedule after a failed delivery: 1, 12, 24, 48 and 72 hours after the first attempt.
enum NotificationRetrySchedule {
    static let offsetsInHours: [Int64] = [1, 12, 24, 48, 72]
}
