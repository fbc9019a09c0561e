/// A partial update of an app.
public struct AppUpdate: Sendable, Codable, Hashable {
    /// New grace period in days.
    public var gracePeriodDays: Int?
    /// New notification URL (empty string clears it).
    public var notificationURL: String?
    /// `V1` or `V2`.
    public var notificationVersion: String?

    /// Creates an update.
    public init(gracePeriodDays: Int? = nil, notificationURL: String? = nil, notificationVersion: String? = nil) {
        self.gracePeriodDays = gracePeriodDays
        self.notificationURL = notificationURL
        self.notificationVersion = notificationVersion
    }
}
