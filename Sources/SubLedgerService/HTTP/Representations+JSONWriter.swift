import NIOCore
import SubLedgerCore

extension Representation {
    /// Writes JSON straight into bytes, for the hot read path (no `Encodable` machinery, no `Data`).
    ///
    /// The caller writes the structure (`{`, keys, `,`); this escapes strings as RFC 8259 requires and
    /// writes times in the API's RFC 3339 form (`Representation.time`).
    struct JSONWriter {
        private(set) var bytes: [UInt8] = []

        init(capacity: Int = 512) {
            bytes.reserveCapacity(capacity)
        }

        mutating func raw(_ text: StaticString) {
            text.withUTF8Buffer { bytes.append(contentsOf: $0) }
        }

        /// `"key":` after a `,` unless `first`.
        mutating func key(_ name: StaticString, first: Bool = false) {
            if !first { bytes.append(UInt8(ascii: ",")) }
            bytes.append(UInt8(ascii: "\""))
            raw(name)
            bytes.append(UInt8(ascii: "\""))
            bytes.append(UInt8(ascii: ":"))
        }

        mutating func string(_ value: String) {
            bytes.append(UInt8(ascii: "\""))
            for byte in value.utf8 {
                switch byte {
                case UInt8(ascii: "\""): raw("\\\"")
                case UInt8(ascii: "\\"): raw("\\\\")
                case UInt8(ascii: "\n"): raw("\\n")
                case UInt8(ascii: "\r"): raw("\\r")
                case UInt8(ascii: "\t"): raw("\\t")
                case 0..<0x20:
                    raw("\\u00")
                    bytes.append(Self.hex[Int(byte >> 4)])
                    bytes.append(Self.hex[Int(byte & 0x0F)])
                default: bytes.append(byte)
                }
            }
            bytes.append(UInt8(ascii: "\""))
        }

        mutating func integer(_ value: Int64) {
            bytes.append(contentsOf: String(value).utf8)
        }

        mutating func bool(_ value: Bool) {
            if value { raw("true") } else { raw("false") }
        }

        /// A time as `Representation.time` formats it.
        mutating func time(_ instant: Instant) {
            bytes.append(UInt8(ascii: "\""))
            if !Representation.appendTime(instant, to: &bytes) {
                bytes.append(contentsOf: (Representation.time(instant) ?? "").utf8)
            }
            bytes.append(UInt8(ascii: "\""))
        }

        private static let hex: [UInt8] = Array("0123456789abcdef".utf8)
    }

    /// Appends `2026-11-22T07:03:26.123Z` for instants in `Instant.acceptedRange` (years 1970 to 9999);
    /// false, appending nothing, outside it.
    static func appendTime(_ instant: Instant, to bytes: inout [UInt8]) -> Bool {
        let milliseconds = instant.millisecondsSince1970
        guard milliseconds >= 0, milliseconds < 253_402_300_800_000 else { return false }
        // Exactly as the Foundation form has always written it: `Date` keeps seconds since 2001 as a `Double`,
        // and the fraction of that is truncated to milliseconds (so some instants read a millisecond early,
        // as they always did).
        let sinceReference = Double(milliseconds) / 1000 - 978_307_200
        let wholeSeconds = sinceReference.rounded(.down)
        let nanoseconds = Int64((sinceReference - wholeSeconds) * 1_000_000_000)
        let fraction = min(999, nanoseconds / 1_000_000)
        let dayMilliseconds: Int64 = 86_400_000
        let truncated = (Int64(wholeSeconds) + 978_307_200) * 1000 + fraction
        let days = truncated / dayMilliseconds
        var rest = truncated % dayMilliseconds
        let date = CivilDate.date(days: days)
        func digits(_ value: Int64, _ count: Int) {
            var divisor: Int64 = 1
            for _ in 1..<count { divisor *= 10 }
            var value = value
            while divisor > 0 {
                bytes.append(UInt8(ascii: "0") + UInt8(value / divisor))
                value %= divisor
                divisor /= 10
            }
        }
        digits(date.year, 4)
        bytes.append(UInt8(ascii: "-"))
        digits(date.month, 2)
        bytes.append(UInt8(ascii: "-"))
        digits(date.day, 2)
        bytes.append(UInt8(ascii: "T"))
        digits(rest / 3_600_000, 2)
        rest %= 3_600_000
        bytes.append(UInt8(ascii: ":"))
        digits(rest / 60_000, 2)
        rest %= 60_000
        bytes.append(UInt8(ascii: ":"))
        digits(rest / 1000, 2)
        bytes.append(UInt8(ascii: "."))
        digits(rest % 1000, 3)
        bytes.append(UInt8(ascii: "Z"))
        return true
    }
}
