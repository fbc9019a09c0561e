/// The clock's state.
public struct ClockDescription: Sendable, Codable, Hashable {
    /// `manual` or `accelerated`.
    public var mode: String
    /// Simulated now, milliseconds since 1970.
    public var now: Int64
    /// The acceleration factor.
    public var acceleration: Double
    /// Notifications created while processing due renewals and expiries.
    public var notificationUUIDs: [String]
}
