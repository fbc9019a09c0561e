/// A period during which an app is in Apple's Small Business Program (15 % commission): from a day on,
/// until a day (exclusive) or open-ended.
public struct SmallBusinessPeriod: Hashable, Sendable, Codable {
    /// Days since 1970-01-01.
    public var fromDay: Int64
    public var untilDay: Int64?

    public init(fromDay: Int64, untilDay: Int64? = nil) {
        self.fromDay = fromDay
        self.untilDay = untilDay
    }

    /// Whether `day` is inside the period.
    public func contains(_ day: Int64) -> Bool { day >= fromDay && untilDay.map { day < $0 } ?? true }
}
