/// A strict reader of one JSON text over its UTF-8 bytes, for the stored chain's columns (`StoredChainJSON`).
///
/// It reads what PostgreSQL returns for a jsonb or json value (any JSON whitespace, members in any order)
/// and refuses everything RFC 8259 refuses: a truncated text, a trailing comma, an unquoted or single-quoted
/// name, a raw control character in a string, an invalid escape, a lone UTF-16 surrogate (`\uD800`),
/// invalid UTF-8, a number with a leading zero, text after the value. Integers are read exactly into
/// `Int64` with overflow checks (no trapping arithmetic); a fraction or an exponent where an integer is
/// expected is refused (jsonb prints `1e3` as `1000` and keeps a fraction only where one was written, and neither
/// encoder ever wrote one for an integer).
/// Values of unknown names are checked and skipped, nested at most `maximumDepth` deep.
///
/// Only valid inside `read(_:_:)`, which owns the bytes for the reader's lifetime.
struct StoredJSONReader {
    /// Why a text was refused and at which byte.
    struct Malformed: Error, CustomStringConvertible {
        var reason: String
        var offset: Int
        var description: String { "\(reason) at byte \(offset)" }
    }

    /// Where a caller is in one object: whether a member was read, and which known names were seen.
    struct ObjectCursor {
        fileprivate var isFirst = true
        fileprivate var seen: UInt64 = 0
    }

    /// What `nextMember` found: the end of the object, a name the caller does not know (its value still to
    /// skip), or the index of a known name (its value next).
    enum Member {
        case end
        case unknown
        case known(Int)
    }

    /// Nesting allowed below the value being read, for values skipped under unknown names.
    static let maximumDepth = 64

    private let bytes: UnsafeBufferPointer<UInt8>
    private(set) var offset = 0

    private init(_ bytes: UnsafeBufferPointer<UInt8>) {
        self.bytes = bytes
    }

    /// Reads `text` with `body`, then requires that nothing but whitespace follows the value it read.
    static func read<T>(_ text: String, _ body: (inout StoredJSONReader) throws -> T) throws -> T {
        var text = text
        return try text.withUTF8 { buffer in
            var reader = StoredJSONReader(buffer)
            let value = try body(&reader)
            reader.skipWhitespace()
            guard reader.offset == buffer.count else { throw reader.malformed("text after the value") }
            return value
        }
    }

    func malformed(_ reason: String) -> Malformed {
        Malformed(reason: reason, offset: offset)
    }

    // MARK: Structure

    /// The next byte that is not whitespace, not consumed.
    mutating func peek() throws -> UInt8 {
        skipWhitespace()
        guard offset < bytes.count else { throw malformed("unexpected end of text") }
        return bytes[offset]
    }

    private mutating func skipWhitespace() {
        while offset < bytes.count {
            switch bytes[offset] {
            case 0x20, 0x0A, 0x0D, 0x09: offset += 1
            default: return
            }
        }
    }

    private mutating func expect(_ byte: UInt8, _ what: String) throws {
        guard try peek() == byte else { throw malformed("expected \(what)") }
        offset += 1
    }

    mutating func beginObject() throws {
        try expect(UInt8(ascii: "{"), "an object")
    }

    /// Reads up to the value of the object's next member and says whose it is. A known name seen twice is
    /// refused: jsonb keeps one member per name, so only a text written by hand can repeat one.
    mutating func nextMember(of keys: StoredJSONKeys, _ cursor: inout ObjectCursor) throws -> Member {
        if try peek() == UInt8(ascii: "}") {
            offset += 1
            return .end
        }
        if cursor.isFirst {
            cursor.isFirst = false
        } else {
            try expect(UInt8(ascii: ","), "',' or '}'")
        }
        let index = try readKey(of: keys)
        try expect(UInt8(ascii: ":"), "':'")
        guard let index else { return .unknown }
        let bit: UInt64 = 1 << UInt64(index)
        guard cursor.seen & bit == 0 else { throw malformed("the name '\(keys.name(at: index))' appears twice") }
        cursor.seen |= bit
        return .known(index)
    }

    /// A member's name as an index into `keys`, `nil` for a name `keys` does not hold. Names without escapes
    /// (all that jsonb writes) are compared in place, without making a string.
    private mutating func readKey(of keys: StoredJSONKeys) throws -> Int? {
        guard try peek() == UInt8(ascii: "\"") else { throw malformed("expected a name") }
        let start = offset + 1
        var end = start
        while end < bytes.count {
            let byte = bytes[end]
            if byte == UInt8(ascii: "\"") {
                if let index = keys.index(of: UnsafeBufferPointer(rebasing: bytes[start..<end])) {
                    offset = end + 1
                    return index
                }
                break
            }
            if byte == UInt8(ascii: "\\") || byte < 0x20 || byte >= 0x80 { break }
            end += 1
        }
        // Escapes, non-ASCII or an unknown name: read (and check) it as any string.
        var name = try readString()
        return name.withUTF8 { keys.index(of: $0) }
    }

    mutating func beginArray() throws {
        try expect(UInt8(ascii: "["), "an array")
    }

    /// Whether the array has another element (then next to read); `isFirst` starts `true`.
    mutating func nextElement(_ isFirst: inout Bool) throws -> Bool {
        if try peek() == UInt8(ascii: "]") {
            offset += 1
            return false
        }
        if isFirst {
            isFirst = false
        } else {
            try expect(UInt8(ascii: ","), "',' or ']'")
        }
        return true
    }

    // MARK: Scalars

    /// Consumes `null` if it comes next.
    mutating func readNull() throws -> Bool {
        guard try peek() == UInt8(ascii: "n") else { return false }
        try literal("null")
        return true
    }

    mutating func readBool() throws -> Bool {
        switch try peek() {
        case UInt8(ascii: "t"):
            try literal("true")
            return true
        case UInt8(ascii: "f"):
            try literal("false")
            return false
        default:
            throw malformed("expected true or false")
        }
    }

    private mutating func literal(_ word: StaticString) throws {
        let count = word.utf8CodeUnitCount
        guard bytes.count - offset >= count else { throw malformed("expected \(word)") }
        let matches = word.withUTF8Buffer { expected in
            (0..<count).allSatisfy { bytes[offset + $0] == expected[$0] }
        }
        guard matches else { throw malformed("expected \(word)") }
        offset += count
    }

    /// An integer written as JSON writes one (`-?(0|[1-9][0-9]*)`), exactly, within `Int64`.
    mutating func readInt64() throws -> Int64 {
        var negative = false
        if try peek() == UInt8(ascii: "-") {
            negative = true
            offset += 1
        }
        guard offset < bytes.count, let first = digit(bytes[offset]) else { throw malformed("expected an integer") }
        offset += 1
        var magnitude = UInt64(first)
        if first != 0 {
            while offset < bytes.count, let next = digit(bytes[offset]) {
                let (times10, overflowed) = magnitude.multipliedReportingOverflow(by: 10)
                let (sum, carried) = times10.addingReportingOverflow(UInt64(next))
                guard !overflowed, !carried else { throw malformed("an integer out of range") }
                magnitude = sum
                offset += 1
            }
        }
        if offset < bytes.count {
            switch bytes[offset] {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): throw malformed("a number with a leading zero")
            case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): throw malformed("expected an integer")
            default: break
            }
        }
        let limit = negative ? UInt64(Int64.max) + 1 : UInt64(Int64.max)
        guard magnitude <= limit else { throw malformed("an integer out of range") }
        if negative {
            return magnitude == limit ? Int64.min : -Int64(magnitude)
        }
        return Int64(magnitude)
    }

    mutating func readInt() throws -> Int {
        let value = try readInt64()
        guard let int = Int(exactly: value) else { throw malformed("an integer out of range") }
        return int
    }

    private func digit(_ byte: UInt8) -> UInt8? {
        byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") ? byte - UInt8(ascii: "0") : nil
    }

    /// A string, unescaped and checked to be valid UTF-8 without lone surrogates.
    mutating func readString() throws -> String {
        guard try peek() == UInt8(ascii: "\"") else { throw malformed("expected a string") }
        offset += 1
        let start = offset
        while offset < bytes.count {
            let byte = bytes[offset]
            if byte == UInt8(ascii: "\"") {
                let text = try string(from: UnsafeBufferPointer(rebasing: bytes[start..<offset]))
                offset += 1
                return text
            }
            if byte == UInt8(ascii: "\\") { return try readEscapedString(from: start) }
            guard byte >= 0x20 else { throw malformed("a control character in a string") }
            offset += 1
        }
        throw malformed("an unterminated string")
    }

    private func string(from utf8: some Collection<UInt8>) throws -> String {
        guard let text = String(validating: utf8, as: UTF8.self) else { throw malformed("invalid UTF-8 in a string") }
        return text
    }

    /// The rest of a string from `start` (just after its quote) once an escape is met at `offset`.
    private mutating func readEscapedString(from start: Int) throws -> String {
        var unescaped: [UInt8] = []
        unescaped.reserveCapacity(offset - start + 16)
        unescaped.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start..<offset]))
        while offset < bytes.count {
            let byte = bytes[offset]
            switch byte {
            case UInt8(ascii: "\""):
                offset += 1
                return try string(from: unescaped)
            case UInt8(ascii: "\\"):
                offset += 1
                guard offset < bytes.count else { break }
                let escape = bytes[offset]
                offset += 1
                switch escape {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): unescaped.append(escape)
                case UInt8(ascii: "b"): unescaped.append(0x08)
                case UInt8(ascii: "f"): unescaped.append(0x0C)
                case UInt8(ascii: "n"): unescaped.append(0x0A)
                case UInt8(ascii: "r"): unescaped.append(0x0D)
                case UInt8(ascii: "t"): unescaped.append(0x09)
                case UInt8(ascii: "u"): unescaped.append(contentsOf: UTF8.encode(try readUnicodeEscape())!)
                default:
                    offset -= 1
                    throw malformed("an invalid escape in a string")
                }
            case 0..<0x20:
                throw malformed("a control character in a string")
            default:
                unescaped.append(byte)
                offset += 1
            }
        }
        throw malformed("an unterminated string")
    }

    /// The scalar of `\uXXXX` (after its `u`), or of a surrogate pair `\uD83D\uDE00`.
    private mutating func readUnicodeEscape() throws -> Unicode.Scalar {
        let unit = try readHex4()
        var value = unit
        switch unit {
        case 0xD800...0xDBFF:
            guard bytes.count - offset >= 2, bytes[offset] == UInt8(ascii: "\\"), bytes[offset + 1] == UInt8(ascii: "u")
            else { throw malformed("a lone surrogate in a string") }
            offset += 2
            let low = try readHex4()
            guard (0xDC00...0xDFFF).contains(low) else { throw malformed("a lone surrogate in a string") }
            value = 0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00)
        case 0xDC00...0xDFFF:
            throw malformed("a lone surrogate in a string")
        default:
            break
        }
        guard let scalar = Unicode.Scalar(value) else { throw malformed("an invalid escape in a string") }
        return scalar
    }

    private mutating func readHex4() throws -> UInt32 {
        guard bytes.count - offset >= 4 else { throw malformed("an invalid escape in a string") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[offset]
            let nibble: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): nibble = byte - UInt8(ascii: "A") + 10
            default: throw malformed("an invalid escape in a string")
            }
            value = value << 4 | UInt32(nibble)
            offset += 1
        }
        return value
    }

    // MARK: Values under unknown names

    /// Checks and skips one value of any kind, as the synthesized decoders ignored members they did not know.
    mutating func skipValue(depth: Int = 0) throws {
        guard depth <= Self.maximumDepth else { throw malformed("nested too deeply") }
        switch try peek() {
        case UInt8(ascii: "{"):
            offset += 1
            var isFirst = true
            while true {
                if try peek() == UInt8(ascii: "}") {
                    offset += 1
                    return
                }
                if isFirst { isFirst = false } else { try expect(UInt8(ascii: ","), "',' or '}'") }
                guard try peek() == UInt8(ascii: "\"") else { throw malformed("expected a name") }
                _ = try readString()
                try expect(UInt8(ascii: ":"), "':'")
                try skipValue(depth: depth + 1)
            }
        case UInt8(ascii: "["):
            offset += 1
            var isFirst = true
            while try nextElement(&isFirst) {
                try skipValue(depth: depth + 1)
            }
        case UInt8(ascii: "\""):
            _ = try readString()
        case UInt8(ascii: "t"), UInt8(ascii: "f"):
            _ = try readBool()
        case UInt8(ascii: "n"):
            try literal("null")
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            try skipNumber()
        default:
            throw malformed("expected a value")
        }
    }

    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`
    private mutating func skipNumber() throws {
        if bytes[offset] == UInt8(ascii: "-") { offset += 1 }
        guard offset < bytes.count, let first = digit(bytes[offset]) else { throw malformed("an invalid number") }
        offset += 1
        if first != 0 { skipDigits() }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: ".") {
            offset += 1
            guard skipDigits() > 0 else { throw malformed("an invalid number") }
        }
        if offset < bytes.count, bytes[offset] == UInt8(ascii: "e") || bytes[offset] == UInt8(ascii: "E") {
            offset += 1
            if offset < bytes.count, bytes[offset] == UInt8(ascii: "+") || bytes[offset] == UInt8(ascii: "-") {
                offset += 1
            }
            guard skipDigits() > 0 else { throw malformed("an invalid number") }
        }
        if offset < bytes.count, digit(bytes[offset]) != nil { throw malformed("a number with a leading zero") }
    }

    @discardableResult
    private mutating func skipDigits() -> Int {
        let start = offset
        while offset < bytes.count, digit(bytes[offset]) != nil { offset += 1 }
        return offset - start
    }
}
