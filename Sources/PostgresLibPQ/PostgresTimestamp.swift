import Foundation

/// An exact `timestamptz` instant in microseconds since 1970-01-01 00:00:00 UTC, PostgreSQL's own resolution.
///
/// Use it instead of `Date` where exactness matters (App Store dates are integer milliseconds; a
/// `Date` is a `Double` and can drift by a microsecond on the way through).
public struct PostgresTimestamp: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Microseconds since the Unix epoch.
    public var microsecondsSince1970: Int64

    /// Creates an instant from microseconds since the Unix epoch.
    public init(microsecondsSince1970: Int64) {
        self.microsecondsSince1970 = microsecondsSince1970
    }

    /// Creates an instant from milliseconds since the Unix epoch (Apple's representation).
    ///
    /// Milliseconds beyond ±292,000 years have no microsecond `Int64`; they clamp to the nearest
    /// representable instant instead of trapping, because a value conversion must never end the process.
    /// Dates from outside are range-checked where they are decoded (`Instant.acceptedRange`), long before.
    public init(millisecondsSince1970: Int64) {
        let (microseconds, overflow) = millisecondsSince1970.multipliedReportingOverflow(by: 1_000)
        if overflow {
            self.microsecondsSince1970 = millisecondsSince1970 < 0 ? .min : .max
        } else {
            self.microsecondsSince1970 = microseconds
        }
    }

    /// Creates an instant from a `Date`, rounded to the nearest microsecond.
    public init(_ date: Date) {
        let microseconds = (date.timeIntervalSince1970 * 1_000_000).rounded()
        // Dates outside ±292,000 years cannot be represented; clamp instead of trapping.
        if microseconds >= Double(Int64.max) {
            self.microsecondsSince1970 = Int64.max
        } else if microseconds <= Double(Int64.min) {
            self.microsecondsSince1970 = Int64.min
        } else {
            self.microsecondsSince1970 = Int64(microseconds)
        }
    }

    /// Milliseconds since the Unix epoch, rounded toward negative infinity.
    public var millisecondsSince1970: Int64 {
        Self.floorDivide(microsecondsSince1970, 1_000)
    }

    /// The instant as a `Date`.
    public var date: Date {
        let seconds = Self.floorDivide(microsecondsSince1970, 1_000_000)
        let micros = Self.floorModulo(microsecondsSince1970, 1_000_000)
        return Date(timeIntervalSince1970: Double(seconds) + Double(micros) / 1_000_000)
    }

    public static func < (lhs: PostgresTimestamp, rhs: PostgresTimestamp) -> Bool {
        lhs.microsecondsSince1970 < rhs.microsecondsSince1970
    }

    public var description: String { postgresText }

    /// The ISO text form PostgreSQL accepts for `timestamptz` input, in UTC: `2024-01-02 03:04:05.123456+00`.
    var postgresText: String {
        let seconds = Self.floorDivide(microsecondsSince1970, 1_000_000)
        let micros = Self.floorModulo(microsecondsSince1970, 1_000_000)
        let days = Self.floorDivide(seconds, 86_400)
        let secondOfDay = seconds - days * 86_400
        let (year, month, day) = Self.civilDate(fromDaysSince1970: days)
        var text = ""
        // Year 0 is 1 BC in PostgreSQL's notation (astronomical year numbering is not accepted).
        let isBeforeChrist = year <= 0
        let displayYear = isBeforeChrist ? 1 - year : year
        text += Self.padded(displayYear, width: 4)
        text += "-" + Self.padded(month, width: 2) + "-" + Self.padded(day, width: 2)
        text += " " + Self.padded(secondOfDay / 3_600, width: 2)
        text += ":" + Self.padded(secondOfDay % 3_600 / 60, width: 2)
        text += ":" + Self.padded(secondOfDay % 60, width: 2)
        if micros != 0 {
            text += "." + Self.padded(micros, width: 6)
        }
        text += "+00"
        if isBeforeChrist {
            text += " BC"
        }
        return text
    }

    /// Parses PostgreSQL's ISO output (`DateStyle=ISO`): `YYYY-MM-DD HH:MM:SS[.ffffff]±HH[:MM[:SS]][ BC]`.
    init?(postgresText text: some Collection<UInt8>) {
        var parser = Parser(bytes: Array(text))
        guard let year = parser.number(minDigits: 4, maxDigits: 7), parser.expect(UInt8(ascii: "-")),
            let month = parser.number(minDigits: 2, maxDigits: 2), parser.expect(UInt8(ascii: "-")),
            let day = parser.number(minDigits: 2, maxDigits: 2),
            parser.expect(UInt8(ascii: " ")) || parser.expect(UInt8(ascii: "T")),
            let hour = parser.number(minDigits: 2, maxDigits: 2), parser.expect(UInt8(ascii: ":")),
            let minute = parser.number(minDigits: 2, maxDigits: 2), parser.expect(UInt8(ascii: ":")),
            let second = parser.number(minDigits: 2, maxDigits: 2)
        else { return nil }
        var micros: Int64 = 0
        if parser.expect(UInt8(ascii: ".")) {
            var digits = 0
            while let digit = parser.digit() {
                // Digits beyond microseconds cannot come from the server; ignore rather than fail.
                if digits < 6 {
                    micros = micros * 10 + Int64(digit)
                }
                digits += 1
            }
            guard digits > 0 else { return nil }
            for _ in digits..<max(digits, 6) {
                micros *= 10
            }
        }
        var offsetSeconds: Int64 = 0
        if parser.expect(UInt8(ascii: "Z")) {
            offsetSeconds = 0
        } else {
            let sign: Int64
            if parser.expect(UInt8(ascii: "+")) {
                sign = 1
            } else if parser.expect(UInt8(ascii: "-")) {
                sign = -1
            } else {
                return nil
            }
            guard let offsetHours = parser.number(minDigits: 2, maxDigits: 2) else { return nil }
            var offset = offsetHours * 3_600
            if parser.expect(UInt8(ascii: ":")) {
                guard let offsetMinutes = parser.number(minDigits: 2, maxDigits: 2) else { return nil }
                offset += offsetMinutes * 60
                if parser.expect(UInt8(ascii: ":")) {
                    guard let offsetSecondsPart = parser.number(minDigits: 2, maxDigits: 2) else { return nil }
                    offset += offsetSecondsPart
                }
            }
            offsetSeconds = sign * offset
        }
        var astronomicalYear = year
        if parser.expect(UInt8(ascii: " ")) {
            guard parser.expect(UInt8(ascii: "B")), parser.expect(UInt8(ascii: "C")) else { return nil }
            astronomicalYear = 1 - year
        }
        guard parser.isAtEnd, (1...12).contains(month), (1...31).contains(day), hour <= 24, minute <= 59,
            second <= 60
        else { return nil }
        let days = Self.daysSince1970(year: astronomicalYear, month: month, day: day)
        let localSeconds = days * 86_400 + hour * 3_600 + minute * 60 + second
        let (utcSeconds, overflow1) = (localSeconds - offsetSeconds).multipliedReportingOverflow(by: 1_000_000)
        let (total, overflow2) = utcSeconds.addingReportingOverflow(micros)
        guard !overflow1, !overflow2 else { return nil }
        self.microsecondsSince1970 = total
    }

    // Howard Hinnant's days_from_civil / civil_from_days, proleptic Gregorian calendar.
    static func daysSince1970(year: Int64, month: Int64, day: Int64) -> Int64 {
        let adjustedYear = month <= 2 ? year - 1 : year
        let era = floorDivide(adjustedYear, 400)
        let yearOfEra = adjustedYear - era * 400
        let shiftedMonth = month > 2 ? month - 3 : month + 9
        let dayOfYear = (153 * shiftedMonth + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    static func civilDate(fromDaysSince1970 days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let era = floorDivide(shifted, 146_097)
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1_460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let shiftedMonth = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * shiftedMonth + 2) / 5 + 1
        let month = shiftedMonth < 10 ? shiftedMonth + 3 : shiftedMonth - 9
        let year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        return (year, month, day)
    }

    static func floorDivide(_ value: Int64, _ divisor: Int64) -> Int64 {
        let quotient = value / divisor
        return (value % divisor != 0 && (value < 0) != (divisor < 0)) ? quotient - 1 : quotient
    }

    /// The remainder that goes with `floorDivide` (never negative for a positive divisor), computed without
    /// multiplying back, which would overflow near `Int64.min`.
    static func floorModulo(_ value: Int64, _ divisor: Int64) -> Int64 {
        let remainder = value % divisor
        return (remainder != 0 && (remainder < 0) != (divisor < 0)) ? remainder + divisor : remainder
    }

    private static func padded(_ value: Int64, width: Int) -> String {
        let digits = String(value)
        return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
    }

    private struct Parser {
        let bytes: [UInt8]
        var position = 0

        var isAtEnd: Bool { position == bytes.count }

        mutating func expect(_ byte: UInt8) -> Bool {
            guard position < bytes.count, bytes[position] == byte else { return false }
            position += 1
            return true
        }

        mutating func digit() -> Int64? {
            guard position < bytes.count, bytes[position] >= UInt8(ascii: "0"), bytes[position] <= UInt8(ascii: "9")
            else { return nil }
            defer { position += 1 }
            return Int64(bytes[position] - UInt8(ascii: "0"))
        }

        mutating func number(minDigits: Int, maxDigits: Int) -> Int64? {
            var value: Int64 = 0
            var count = 0
            while count < maxDigits, let digit = digit() {
                value = value * 10 + digit
                count += 1
            }
            return count >= minDigits ? value : nil
        }
    }
}
