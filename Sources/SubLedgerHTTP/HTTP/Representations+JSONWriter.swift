import NIOCore
import SubLedgerCore
import SubLedgerUseCases

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

        /// A time as `Representation.time` formats it, appended by `RFC3339.append` with no `String` between.
        mutating func time(_ instant: Instant) {
            bytes.append(UInt8(ascii: "\""))
            RFC3339.append(instant, to: &bytes)
            bytes.append(UInt8(ascii: "\""))
        }

        private static let hex: [UInt8] = Array("0123456789abcdef".utf8)
    }

}
