import Foundation
import SubLedgerCore

/// A base plan's billing period, as the Play Console offers them (ISO 8601 durations).
public enum BillingPeriod: String, Sendable, Codable, CaseIterable {
    case oneWeek = "P1W"
    case oneMonth = "P1M"
    case threeMonths = "P3M"
    case sixMonths = "P6M"
    case oneYear = "P1Y"

    /// The instant one period after `start`, by the UTC calendar (a month from January 31 is the end of February).
    public func end(after start: Instant) -> Instant {
        switch self {
        case .oneWeek: return start.adding(milliseconds: 7 * 86_400_000)
        case .oneMonth: return Self.adding(months: 1, to: start)
        case .threeMonths: return Self.adding(months: 3, to: start)
        case .sixMonths: return Self.adding(months: 6, to: start)
        case .oneYear: return Self.adding(months: 12, to: start)
        }
    }

    private static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    private static func adding(months: Int, to start: Instant) -> Instant {
        let date = Date(timeIntervalSince1970: Double(start.millisecondsSince1970) / 1000)
        guard let moved = calendar.date(byAdding: .month, value: months, to: date) else {
            return start.adding(milliseconds: Int64(months) * 30 * 86_400_000)
        }
        return Instant(millisecondsSince1970: Int64((moved.timeIntervalSince1970 * 1000).rounded()))
    }
}
