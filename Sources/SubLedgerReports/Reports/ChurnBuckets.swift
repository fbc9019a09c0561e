import Foundation

/// The UTC day or month boundaries that cover a range.
enum ChurnBuckets {
    static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        return calendar
    }()

    /// The start of every period that overlaps [`from`, `to`), the first one truncated down to its boundary.
    static func starts(from: Date, to: Date, granularity: ChurnReport.Granularity) -> [Date] {
        let components: Set<Calendar.Component> = granularity == .day ? [.year, .month, .day] : [.year, .month]
        guard var start = calendar.date(from: calendar.dateComponents(components, from: from)) else { return [] }
        var starts: [Date] = []
        while start < to {
            starts.append(start)
            guard let next = calendar.date(byAdding: granularity == .day ? .day : .month, value: 1, to: start) else {
                break
            }
            start = next
        }
        return starts
    }
}
