/// Move the clock.
public struct ClockAdvanceRequest: Sendable, Codable, Hashable {
    /// Milliseconds to add.
    public var milliseconds: Int64?
    /// Seconds to add.
    public var seconds: Int64?
    /// Minutes to add.
    public var minutes: Int64?
    /// Hours to add.
    public var hours: Int64?
    /// Days to add.
    public var days: Int64?

    /// Creates a request; the parts add up.
    public init(
        milliseconds: Int64? = nil, seconds: Int64? = nil, minutes: Int64? = nil, hours: Int64? = nil,
        days: Int64? = nil
    ) {
        self.milliseconds = milliseconds
        self.seconds = seconds
        self.minutes = minutes
        self.hours = hours
        self.days = days
    }

    /// The total span in milliseconds.
    public var totalMilliseconds: Int64 {
        (milliseconds ?? 0) + (seconds ?? 0) * 1000 + (minutes ?? 0) * 60_000 + (hours ?? 0) * 3_600_000
            + (days ?? 0) * 86_400_000
    }
}
