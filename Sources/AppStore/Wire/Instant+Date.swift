import Foundation
import SubLedgerCore

extension Instant {
    /// The same moment as a Foundation `Date`, for APIs (certificates, HTTP) that take one.
    var date: Date { Date(timeIntervalSince1970: Double(millisecondsSince1970) / 1000) }

    /// The instant of a `Date`, truncated to whole milliseconds.
    init(date: Date) {
        let milliseconds = (date.timeIntervalSince1970 * 1000).rounded(.down)
        self.init(millisecondsSince1970: Int64(exactly: milliseconds) ?? (milliseconds < 0 ? .min : .max))
    }
}
