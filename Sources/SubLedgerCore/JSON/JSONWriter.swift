/// Writes compact JSON (no whitespace) straight into bytes, without Foundation: SubLedger's one JSON writer,
/// for the API's hand-written responses, webhook event bodies and the ledger's stored columns.
///
/// The caller gives the structure (`beginObject`, `key`, values, `endObject`); the writer puts the commas
/// between members and elements, escapes strings and writes times in the API's RFC 3339 form. Keys are
/// written as given: callers write the members of an object in the order they want them.
public struct JSONWriter: Sendable {
    /// Which characters of a string are escaped. Both forms are valid JSON and read back the same.
    public enum Escaping: Sendable {
        /// RFC 8259's minimum: `"`, `\` and the control characters (`\n`, `\r`, `\t`, else `\u00XX`). The
        /// API's responses and webhook events.
        case minimal
        /// As Foundation's `JSONEncoder` escapes: also `/` as `\/`, and `\b`, `\f`. For stored columns first
        /// written by `JSONEncoder`, whose bytes must not change.
        case foundation
    }

    public private(set) var bytes: [UInt8] = []
    private let escaping: Escaping
    /// Whether the next member or element needs a comma before it.
    private var needsComma = false

    public init(capacity: Int = 256, escaping: Escaping = .minimal) {
        self.escaping = escaping
        bytes.reserveCapacity(capacity)
    }

    /// What was written, as text.
    public var text: String { String(decoding: bytes, as: UTF8.self) }

    public mutating func beginObject() {
        separate()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
    }

    public mutating func endObject() {
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    public mutating func beginArray() {
        separate()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
    }

    public mutating func endArray() {
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// A member's name known at compile time (plain ASCII, needing no escapes); its value comes next.
    public mutating func key(_ name: StaticString) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        name.withUTF8Buffer { bytes.append(contentsOf: $0) }
        bytes.append(UInt8(ascii: "\""))
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// A member's name from data, escaped as strings are; its value comes next.
    public mutating func escapedKey(_ name: String) {
        string(name)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    public mutating func null() {
        separate()
        bytes.append(contentsOf: [UInt8(ascii: "n"), UInt8(ascii: "u"), UInt8(ascii: "l"), UInt8(ascii: "l")])
        needsComma = true
    }

    public mutating func bool(_ value: Bool) {
        separate()
        if value {
            bytes.append(contentsOf: [UInt8(ascii: "t"), UInt8(ascii: "r"), UInt8(ascii: "u"), UInt8(ascii: "e")])
        } else {
            bytes.append(contentsOf: [
                UInt8(ascii: "f"), UInt8(ascii: "a"), UInt8(ascii: "l"), UInt8(ascii: "s"), UInt8(ascii: "e"),
            ])
        }
        needsComma = true
    }

    public mutating func integer(_ value: Int64) {
        separate()
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        // 20 digits hold UInt64.max; written from the end, then copied in order.
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: 20) { digits in
            var start = 20
            repeat {
                start -= 1
                digits[start] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: digits[start..<20]))
        }
        needsComma = true
    }

    /// An instant as the API writes times: a string, RFC 3339 in UTC with milliseconds
    /// (`2026-11-22T10:15:00.000Z`, `RFC3339.format`).
    public mutating func time(_ instant: Instant) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        RFC3339.append(instant, to: &bytes)
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    public mutating func string(_ value: String) {
        separate()
        bytes.append(UInt8(ascii: "\""))
        let escapesSolidus = escaping == .foundation
        var value = value
        value.withUTF8 { utf8 in
            // Runs of bytes needing no escape are copied whole.
            var plainStart = 0
            for index in 0..<utf8.count {
                let byte = utf8[index]
                guard
                    byte < 0x20 || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "\\")
                        || (escapesSolidus && byte == UInt8(ascii: "/"))
                else { continue }
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[plainStart..<index]))
                plainStart = index + 1
                appendEscape(of: byte)
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[plainStart..<utf8.count]))
        }
        bytes.append(UInt8(ascii: "\""))
        needsComma = true
    }

    private mutating func appendEscape(of byte: UInt8) {
        bytes.append(UInt8(ascii: "\\"))
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): bytes.append(byte)
        case 0x0A: bytes.append(UInt8(ascii: "n"))
        case 0x0D: bytes.append(UInt8(ascii: "r"))
        case 0x09: bytes.append(UInt8(ascii: "t"))
        case 0x08 where escaping == .foundation: bytes.append(UInt8(ascii: "b"))
        case 0x0C where escaping == .foundation: bytes.append(UInt8(ascii: "f"))
        default:
            bytes.append(contentsOf: [
                UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), Self.hexDigit(byte >> 4),
                Self.hexDigit(byte & 0x0F),
            ])
        }
    }

    private static func hexDigit(_ nibble: UInt8) -> UInt8 {
        nibble < 10 ? UInt8(ascii: "0") + nibble : UInt8(ascii: "a") + nibble - 10
    }

    private mutating func separate() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
    }
}
