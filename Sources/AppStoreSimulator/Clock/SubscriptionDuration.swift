import Foundation
import SubLedgerCore

/// A subscription period length, in Apple's ISO 8601 spelling (`P1W`, `P1M`, `P2M`, `P3M`, `P6M`, `P1Y`).
public enum SubscriptionDuration: String, Sendable, Codable, CaseIterable {
    case oneWeek = "P1W"
    case oneMonth = "P1M"
    case twoMonths = "P2M"
    case threeMonths = "P3M"
    case sixMonths = "P6M"
    case oneYear = "P1Y"

    /// Apple's sandbox length of this period in minutes (1 week → 3, 1 month → 5, 1 year → 60).
    public var sandboxMinutes: Int64 {
        switch self {
        case .oneWeek: 3
        case .oneMonth: 5
        case .twoMonths: 10
        case .threeMonths: 15
        case .sixMonths: 30
        case .oneYear: 60
        }
    }

    /// The end of a period starting at `start`: calendar arithmetic in UTC, or the sandbox length.
    public func end(from start: Instant, sandbox: Bool) -> Instant {
        if sandbox { return start.adding(milliseconds: sandboxMinutes * 60_000) }
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        let components: DateComponents
        switch self {
        case .oneWeek: components = DateComponents(day: 7)
        case .oneMonth: components = DateComponents(month: 1)
        case .twoMonths: components = DateComponents(month: 2)
        case .threeMonths: components = DateComponents(month: 3)
        case .sixMonths: components = DateComponents(month: 6)
        case .oneYear: components = DateComponents(year: 1)
        }
        let date = Date(timeIntervalSince1970: Double(start.millisecondsSince1970) / 1000)
        guard let end = calendar.date(byAdding: components, to: date) else { return start }
        return Instant(millisecondsSince1970: Int64((end.timeIntervalSince1970 * 1000).rounded()))
    }
}

/// Lengths of day-based periods (grace period, billing retry) under either duration regime.
enum DayLength {
    /// `days` as milliseconds: real days, or one minute per day under sandbox durations.
    static func milliseconds(days: Int, sandbox: Bool) -> Int64 {
        sandbox ? Int64(days) * 60_000 : Int64(days) * 86_400_000
    }
}
