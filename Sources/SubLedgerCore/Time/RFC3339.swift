/// Instants as RFC 3339 text: SubLedger's one writer and reader of timestamps (the API, webhook events, the
/// commands, app receipts, the simulator).
///
/// Written in UTC with `Z` and exactly three fraction digits (`2026-11-22T10:15:00.000Z`), or whole seconds
/// where a format asks for them (app receipts). Read with any fraction (truncated to milliseconds) and any
/// offset (`Z`, `+02:00`, or ISO 8601's basic `+0200`, which some receipts carry).
///
/// Pure integer arithmetic on `CivilDate`, no Foundation: every instant formats exactly to the millisecond,
/// and no text, however malformed or long, can make either direction trap.
public enum RFC3339 {
    /// How much of the second `format` writes.
    public enum Precision: Sendable, Hashable {
        /// `2026-11-22T10:15:00.123Z`: SubLedger's own form (the API, webhook events, the commands).
        case milliseconds
        /// `2026-11-22T10:15:00Z`, the fraction truncated toward the past: the form inside Apple's app receipts.
        case seconds
    }

    /// `2026-11-22T10:15:00.123Z`: `instant` in UTC, to `precision` (milliseconds unless asked otherwise).
    ///
    /// Years 0000 through 9999 are written with four digits, as RFC 3339 has them. An instant outside (only a
    /// bug or a forgery makes one; see `Instant.acceptedRange`) is still written, never trapping, with ISO 8601's
    /// expanded year: a sign and at least four digits (`+10000-01-01T00:00:00.000Z`, `-0001-12-31T...`).
    public static func format(_ instant: Instant, precision: Precision = .milliseconds) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(24)
        append(instant, precision: precision, to: &bytes)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The UTC date of `instant` alone (`2026-11-22`): RFC 3339's full-date.
    public static func day(_ instant: Instant) -> String {
        String(format(instant, precision: .seconds).prefix { $0 != "T" })
    }

    /// Appends `format(instant, precision:)` as UTF-8 to `bytes`: the path of JSON written straight into a
    /// buffer (the entitlement read), with no intermediate `String`.
    public static func append(_ instant: Instant, precision: Precision = .milliseconds, to bytes: inout [UInt8]) {
        let milliseconds = instant.millisecondsSince1970
        let dayLength: Int64 = 86_400_000
        // Floor division: the milliseconds before 1970 belong to the day that began before them.
        var days = milliseconds / dayLength
        var rest = milliseconds % dayLength
        if rest < 0 {
            days -= 1
            rest += dayLength
        }
        let date = CivilDate.date(days: days)
        if date.year > 9999 {
            bytes.append(UInt8(ascii: "+"))
            appendDigits(date.year, width: 4, to: &bytes)
        } else if date.year < 0 {
            bytes.append(UInt8(ascii: "-"))
            appendDigits(-date.year, width: 4, to: &bytes)
        } else {
            appendDigits(date.year, width: 4, to: &bytes)
        }
        bytes.append(UInt8(ascii: "-"))
        appendDigits(date.month, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: "-"))
        appendDigits(date.day, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: "T"))
        appendDigits(rest / 3_600_000, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        appendDigits(rest / 60_000 % 60, width: 2, to: &bytes)
        bytes.append(UInt8(ascii: ":"))
        appendDigits(rest / 1000 % 60, width: 2, to: &bytes)
        if precision == .milliseconds {
            bytes.append(UInt8(ascii: "."))
            appendDigits(rest % 1000, width: 3, to: &bytes)
        }
        bytes.append(UInt8(ascii: "Z"))
    }

    /// The instant `text` names, or `nil` when it is not an RFC 3339 date-time.
    ///
    /// Reads `YYYY-MM-DDThh:mm:ss`, an optional fraction of any length (its first three digits are the
    /// milliseconds, the rest are dropped: truncated, not rounded), then `Z` or an offset `+hh:mm`/`-hh:mm`,
    /// the colon optional (`+0100`, as some app receipts write it). `T` and `Z` may be lower case, and a space
    /// may stand for `T` (RFC 3339, section 5.6). Refused: a missing field or offset, a day the month does
    /// not have (2026-02-29, 2026-11-31), hour 24, minute or second 60 (leap seconds included: no instant of
    /// SubLedger's can name one), an offset of 24 hours or more or of 60 minutes, a fraction without digits,
    /// any other character (NUL, spaces around, non-ASCII digits).
    ///
    /// Any four-digit year is read, so the result may lie outside `Instant.acceptedRange` (0001 is read; a
    /// negative offset on 9999-12-31 reaches into year 10000): callers that take instants from outside check
    /// it, or use `Instant(acceptedRFC3339:)`.
    public static func parse(_ text: String) -> Instant? {
        var text = text
        return text.withUTF8 { parse(utf8: $0) }
    }

    private static func parse(utf8 bytes: UnsafeBufferPointer<UInt8>) -> Instant? {
        var index = 0
        // Every number read is at most four digits: the arithmetic below stays far inside `Int64`.
        func number(_ width: Int) -> Int64? {
            guard bytes.count - index >= width else { return nil }
            var value: Int64 = 0
            for _ in 0..<width {
                let byte = bytes[index]
                guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { return nil }
                value = value * 10 + Int64(byte - UInt8(ascii: "0"))
                index += 1
            }
            return value
        }
        func skip(_ accepted: UInt8...) -> Bool {
            guard index < bytes.count, accepted.contains(bytes[index]) else { return false }
            index += 1
            return true
        }
        guard let year = number(4), skip(UInt8(ascii: "-")), let month = number(2), skip(UInt8(ascii: "-")),
            let day = number(2), skip(UInt8(ascii: "T"), UInt8(ascii: "t"), UInt8(ascii: " ")),
            let hour = number(2), skip(UInt8(ascii: ":")), let minute = number(2), skip(UInt8(ascii: ":")),
            let second = number(2)
        else { return nil }
        guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year), hour < 24, minute < 60,
            second < 60
        else { return nil }
        var milliseconds: Int64 = 0
        if skip(UInt8(ascii: ".")) {
            var digits = 0
            while index < bytes.count, bytes[index] >= UInt8(ascii: "0"), bytes[index] <= UInt8(ascii: "9") {
                if digits < 3 { milliseconds = milliseconds * 10 + Int64(bytes[index] - UInt8(ascii: "0")) }
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            for _ in min(digits, 3)..<3 { milliseconds *= 10 }
        }
        var offsetSeconds: Int64 = 0
        if skip(UInt8(ascii: "Z"), UInt8(ascii: "z")) {
            offsetSeconds = 0
        } else if index < bytes.count, bytes[index] == UInt8(ascii: "+") || bytes[index] == UInt8(ascii: "-") {
            let sign: Int64 = bytes[index] == UInt8(ascii: "+") ? 1 : -1
            index += 1
            guard let offsetHours = number(2) else { return nil }
            _ = skip(UInt8(ascii: ":"))  // `+01:00` (RFC 3339) or `+0100` (ISO 8601's basic form)
            guard let offsetMinutes = number(2), offsetHours < 24, offsetMinutes < 60 else { return nil }
            offsetSeconds = sign * (offsetHours * 3600 + offsetMinutes * 60)
        } else {
            return nil
        }
        guard index == bytes.count else { return nil }
        let days = CivilDate.days(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        return Instant(millisecondsSince1970: seconds * 1000 + milliseconds)
    }

    /// The days of `month` (1 ... 12) in `year` of the proleptic Gregorian calendar.
    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: (year % 4 == 0 && year % 100 != 0) || year % 400 == 0 ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Appends the decimal digits of `value` (not negative), zero-padded to at least `width`.
    private static func appendDigits(_ value: Int64, width: Int, to bytes: inout [UInt8]) {
        var divisor: Int64 = 1
        var count = 1
        while count < width || value / divisor >= 10 {
            divisor *= 10
            count += 1
        }
        var rest = value
        while divisor > 0 {
            bytes.append(UInt8(ascii: "0") + UInt8(rest / divisor))
            rest %= divisor
            divisor /= 10
        }
    }
}

extension Instant {
    /// The instant of RFC 3339 `text` (as `RFC3339.parse` reads it), or `nil` when it is not one or lies
    /// outside `acceptedRange`: the reading of a time given from outside (an API `at`, a command's `--since`).
    public init?(acceptedRFC3339 text: String) {
        guard let instant = RFC3339.parse(text), instant.isAccepted else { return nil }
        self = instant
    }
}
