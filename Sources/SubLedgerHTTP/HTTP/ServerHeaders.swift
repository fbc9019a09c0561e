import Foundation
import HTTPTypes
import SubLedgerCore

/// The headers every answer of the service ends with, after its own: `Date` and then `Server`.
///
/// For the router's answers Hummingbird writes them (`Application`: its once-a-second date cache and the
/// configuration's `serverName`, which is `name`); the entitlement read answered on the event loop writes the same
/// two, in the same order and form (`append(to:)`), and `EntitlementReadsOnEventLoopTests` compares both.
enum ServerHeaders {
    /// The `Server` header's value: the `serverName` of the service's `Application`.
    static let name = "SubLedger"

    /// The `Date` header's value, made at most once a second (one per connection handler: no lock).
    struct DateText {
        private var second = Int.min
        private var text = ""

        /// Now, in the IMF-fixdate form (RFC 9110).
        mutating func now() -> String {
            var now = timespec()
            clock_gettime(CLOCK_REALTIME, &now)
            let second = Int(now.tv_sec)
            if second != self.second {
                self.second = second
                text = HTTPDate.text(secondsSince1970: Int64(second))
            }
            return text
        }
    }

    /// Appends `Date` and `Server` to an answer's own headers.
    static func append(to fields: inout HTTPFields, date: inout DateText) {
        fields.append(HTTPField(name: .date, value: date.now()))
        fields.append(HTTPField(name: .server, value: name))
    }
}

/// HTTP's date format, `Wed, 25 Nov 2026 13:45:00 GMT`.
enum HTTPDate {
    private static let weekdays = ["Thu", "Fri", "Sat", "Sun", "Mon", "Tue", "Wed"]
    private static let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]

    static func text(secondsSince1970 seconds: Int64) -> String {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = CivilDate.date(days: days)
        let weekday = weekdays[Int(((days % 7) + 7) % 7)]
        func two(_ value: Int64) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return
            "\(weekday), \(two(day)) \(months[Int(month) - 1]) \(year) \(two(secondOfDay / 3600)):\(two(secondOfDay / 60 % 60)):\(two(secondOfDay % 60)) GMT"
    }
}
