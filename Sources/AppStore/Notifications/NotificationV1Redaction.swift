import Foundation

/// Removes the app's shared secret from a V1 notification body before it is stored.
///
/// Apple echoes the shared secret in the body's top-level `password`; a stored body that kept it would put
/// the secret in every backup, and anyone holding one could forge V1 notifications. Every other byte is
/// kept as received (the body is the audit trail), so the member is cut out of the text rather than the
/// JSON being decoded and encoded again, which would reorder keys and rewrite numbers and escapes.
public enum NotificationV1Redaction {
    /// `body` without its top-level `password` member(s), byte for byte otherwise; `body` itself when it has
    /// none. A key spelled with escapes (`"pass\u0077ord"`) is the same key to a JSON decoder, so it is
    /// matched too. A body this scanner cannot follow is re-encoded without the member (never stored with
    /// it).
    public static func removingPassword(from body: Data) -> Data {
        let bytes = [UInt8](body)
        if let members = TopLevelMembers(bytes) {
            let kept = members.ranges.indices.filter { !members.isPassword[$0] }
            if kept.count == members.ranges.count { return body }
            var output: [UInt8] = []
            output.reserveCapacity(bytes.count)
            output += bytes[..<members.ranges[0].lowerBound]
            for (position, index) in kept.enumerated() {
                // Each kept member keeps the separator it was written with (its comma and line break), the
                // first one goes right after `{` with its own leading whitespace.
                if position > 0 {
                    output += bytes[members.ranges[index - 1].upperBound..<members.ranges[index].lowerBound]
                }
                output += bytes[members.ranges[index]]
            }
            output += bytes[members.ranges[members.ranges.count - 1].upperBound...]
            return Data(output)
        }
        guard var object = (try? JSONSerialization.jsonObject(with: body)) as? [String: Any] else {
            return Data("{}".utf8)
        }
        guard object.removeValue(forKey: "password") != nil else { return body }
        return (try? JSONSerialization.data(withJSONObject: object)) ?? Data("{}".utf8)
    }
}

/// The members of a top-level JSON object as byte ranges (key through value), and which are `password`.
private struct TopLevelMembers {
    var ranges: [Range<Int>] = []
    var isPassword: [Bool] = []

    /// `nil` unless `bytes` is one JSON object with at least one member that this scanner can follow.
    init?(_ bytes: [UInt8]) {
        var scanner = JSONScanner(bytes: bytes)
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { scanner.position = 3 }
        scanner.skipWhitespace()
        guard scanner.consume(UInt8(ascii: "{")) else { return nil }
        scanner.skipWhitespace()
        if scanner.consume(UInt8(ascii: "}")) { return nil }
        while true {
            scanner.skipWhitespace()
            let start = scanner.position
            guard let key = scanner.string() else { return nil }
            scanner.skipWhitespace()
            guard scanner.consume(UInt8(ascii: ":")) else { return nil }
            scanner.skipWhitespace()
            guard scanner.skipValue() else { return nil }
            ranges.append(start..<scanner.position)
            isPassword.append(key == Array("password".unicodeScalars.map(\.value)))
            scanner.skipWhitespace()
            if scanner.consume(UInt8(ascii: ",")) { continue }
            guard scanner.consume(UInt8(ascii: "}")) else { return nil }
            scanner.skipWhitespace()
            guard scanner.position == bytes.count else { return nil }
            return
        }
    }
}

/// A forward-only reader of JSON text: just enough to find member boundaries, iterative (no recursion,
/// so deep nesting cannot exhaust the stack).
private struct JSONScanner {
    let bytes: [UInt8]
    var position = 0

    mutating func skipWhitespace() {
        while position < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[position]) { position += 1 }
    }

    mutating func consume(_ byte: UInt8) -> Bool {
        guard position < bytes.count, bytes[position] == byte else { return false }
        position += 1
        return true
    }

    /// Reads a string; returns its content as code points (UTF-16 units for `\u` escapes, `0xFFFFFFFF`
    /// for each non-ASCII byte, which is enough to compare with an ASCII key).
    mutating func string() -> [UInt32]? {
        guard consume(UInt8(ascii: "\"")) else { return nil }
        var content: [UInt32] = []
        while position < bytes.count {
            let byte = bytes[position]
            position += 1
            switch byte {
            case UInt8(ascii: "\""):
                return content
            case UInt8(ascii: "\\"):
                guard position < bytes.count else { return nil }
                let escaped = bytes[position]
                position += 1
                switch escaped {
                case UInt8(ascii: "u"):
                    guard position + 4 <= bytes.count,
                        let unit = UInt32(String(decoding: bytes[position..<position + 4], as: UTF8.self), radix: 16)
                    else { return nil }
                    position += 4
                    content.append(unit)
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): content.append(UInt32(escaped))
                case UInt8(ascii: "b"): content.append(0x08)
                case UInt8(ascii: "f"): content.append(0x0C)
                case UInt8(ascii: "n"): content.append(0x0A)
                case UInt8(ascii: "r"): content.append(0x0D)
                case UInt8(ascii: "t"): content.append(0x09)
                default: return nil
                }
            case 0x00..<0x20:
                return nil
            case 0x80...:
                content.append(0xFFFF_FFFF)
            default:
                content.append(UInt32(byte))
            }
        }
        return nil
    }

    /// Skips one value: a string, an object or array (however deep), or a number or literal.
    mutating func skipValue() -> Bool {
        guard position < bytes.count else { return false }
        switch bytes[position] {
        case UInt8(ascii: "\""):
            return string() != nil
        case UInt8(ascii: "{"), UInt8(ascii: "["):
            var depth = 0
            while position < bytes.count {
                switch bytes[position] {
                case UInt8(ascii: "\""):
                    guard string() != nil else { return false }
                    continue
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 {
                        position += 1
                        return true
                    }
                default:
                    break
                }
                position += 1
            }
            return false
        default:
            let start = position
            while position < bytes.count,
                ![UInt8(ascii: ","), UInt8(ascii: "}"), UInt8(ascii: "]"), 0x20, 0x09, 0x0A, 0x0D].contains(
                    bytes[position])
            {
                position += 1
            }
            return position > start
        }
    }
}
