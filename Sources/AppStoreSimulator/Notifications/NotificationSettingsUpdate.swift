/// A partial update of `NotificationSettings`; absent fields are unchanged.
public struct NotificationSettingsUpdate: Sendable, Codable, Hashable {
    /// New default URL (empty string clears it).
    public var defaultURL: String?
    /// New duplicate switch.
    public var duplicate: Bool?
    /// New out-of-order switch (turning it off releases held notifications).
    public var outOfOrder: Bool?
    /// New drop switch: notifications created while it is on are never delivered (but are in the history).
    public var drop: Bool?

    /// Creates an update.
    public init(defaultURL: String? = nil, duplicate: Bool? = nil, outOfOrder: Bool? = nil, drop: Bool? = nil) {
        self.defaultURL = defaultURL
        self.duplicate = duplicate
        self.outOfOrder = outOfOrder
        self.drop = drop
    }
}
