import SubLedgerCore

/// Parses the RFC 3339 timestamps inside app receipts (`2023-01-05T21:31:34Z`, optional fraction and offset).
///
/// Offsets are accepted as `+hh:mm` (RFC 3339) and as `+hhmm` (ISO 8601's basic form, which some receipts
/// carry). The result is not range-checked: any four-digit year is representable without overflow, and
/// callers compare it with `Instant.acceptedRange`.
enum RFC3339 {
    /// The instant the text names, or `nil` when it is empty or not a valid timestamp.
    static func parse(_ text: String) -> Instant? {
        let bytes = Array(text.utf8)
        guard bytes.count >= 20, bytes.count <= 40 else { return nil }
        var index = 0
        func number(_ width: Int) -> Int64? {
            guard index + width <= bytes.count else { return nil }
            var value: Int64 = 0
            for byte in bytes[index..<(index + width)] {
                guard byte >= 0x30, byte <= 0x39 else { return nil }
                value = value * 10 + Int64(byte - 0x30)
            }
            index += width
            return value
        }
        func expect(_ characters: [UInt8]) -> Bool {
            guard index < bytes.count, characters.contains(bytes[index]) else { return false }
            index += 1
            return true
        }
        guard let year = number(4), expect([0x2D]), let month = number(2), expect([0x2D]), let day = number(2),
            expect([0x54, 0x74, 0x20]), let hour = number(2), expect([0x3A]), let minute = number(2),
            expect([0x3A]), let second = number(2)
        else { return nil }
        guard (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61 else {
            return nil
        }
        var milliseconds: Int64 = 0
        if index < bytes.count, bytes[index] == 0x2E {
            index += 1
            var digits = 0
            while index < bytes.count, bytes[index] >= 0x30, bytes[index] <= 0x39 {
                if digits < 3 { milliseconds = milliseconds * 10 + Int64(bytes[index] - 0x30) }
                digits += 1
                index += 1
            }
            guard digits > 0 else { return nil }
            var scale = digits
            while scale < 3 {
                milliseconds *= 10
                scale += 1
            }
        }
        var offsetSeconds: Int64 = 0
        guard index < bytes.count else { return nil }
        switch bytes[index] {
        case 0x5A, 0x7A:
            index += 1
        case 0x2B, 0x2D:
            let sign: Int64 = bytes[index] == 0x2B ? 1 : -1
            index += 1
            guard let offsetHours = number(2) else { return nil }
            _ = expect([0x3A])  // the colon is optional: `+0100` and `+01:00` are the same offset
            guard let offsetMinutes = number(2), offsetHours < 24, offsetMinutes < 60 else { return nil }
            offsetSeconds = sign * (offsetHours * 3600 + offsetMinutes * 60)
        default:
            return nil
        }
        guard index == bytes.count else { return nil }
        let days = CivilDate.days(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3600 + minute * 60 + second - offsetSeconds
        return Instant(millisecondsSince1970: seconds * 1000 + milliseconds)
    }
}
