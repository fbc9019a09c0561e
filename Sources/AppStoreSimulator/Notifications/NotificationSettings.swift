/// How notifications are delivered; changed through the control API.
public struct NotificationSettings: Sendable, Codable, Hashable {
    /// Used for apps without their own notification URL.
    public var defaultURL: String?
    /// Post every notification twice (same UUID), as Apple occasionally does.
    public var duplicate: Bool
    /// Hold each notification until the next one is created, then send the newer one first.
    public var outOfOrder: Bool
    /// Drop every notification created while on: never posted, no retries, yet listed by Get Notification
    /// History (an outage longer than Apple's retries). Turning it off does not send the dropped ones.
    public var drop: Bool

    /// Creates settings.
    public init(defaultURL: String? = nil, duplicate: Bool = false, outOfOrder: Bool = false, drop: Bool = false) {
        self.defaultURL = defaultURL
        self.duplicate = duplicate
        self.outOfOrder = outOfOrder
        self.drop = drop
    }

    private enum CodingKeys: String, CodingKey {
        case defaultURL, duplicate, outOfOrder, drop
    }

    /// Decodes settings; a switch that is absent (from an older simulator) is off.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        defaultURL = try container.decodeIfPresent(String.self, forKey: .defaultURL)
        duplicate = try container.decodeIfPresent(Bool.self, forKey: .duplicate) ?? false
        outOfOrder = try container.decodeIfPresent(Bool.self, forKey: .outOfOrder) ?? false
        drop = try container.decodeIfPresent(Bool.self, forKey: .drop) ?? false
    }
}

/// How long Apple keeps notification history: Get Notification History lists nothing older and refuses a
/// `startDate` before it.
enum NotificationRetention {
    static let milliseconds: Int64 = 180 * 86_400_000
}

/// Apple's retry schedule after a failed delivery: 1, 12, 24, 48 and 72 hours after the first attempt.
enum NotificationRetrySchedule {
    static let offsetsInHours: [Int64] = [1, 12, 24, 48, 72]
}
