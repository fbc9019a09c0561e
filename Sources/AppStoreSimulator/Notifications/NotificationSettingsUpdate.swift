/// A partial update of `NotificationSettings`; absent fields are unchanged.
public struct NotificationSettingsUpdate: Sendable, Codable, Hashable {
    /// New default URL (empty string clears it).
    public var defaultURL: String?
    /// New duplicate switch.
    public var duplicate: Bool?
    /// New out-of-order switch (turning it off releases held notifications).
    public var outOfOrder: Bool?

    /// Creates an update.
    public init(defaultURL: String? = nil, duplicate: Bool? = nil, outOfOrder: Bool? = nil) {
        self.defaultURL = defaultURL
        self.duplicate = duplicate
        self.outOfOrder = outOfOrder
    }
}
