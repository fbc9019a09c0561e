import Foundation

/// The input classes the campaign draws from. Each mutation names its class, so a finding says which kind
/// of input caused it (`NUL in account_id`, `Int64 limit in expires_date_ms`).
enum FuzzMutations {
    /// Integers and reals at and beyond the limits of every numeric type, as JSON number text.
    static let extremeNumbers: [String] = [
        "9223372036854775807", "-9223372036854775808", "9223372036854775808", "-9223372036854775809",
        "9223372036854775", "-9223372036854775", "18446744073709551615", "99999999999999999999999999999",
        "253402300799999", "253402300800000", "-62135596800000", "-1", "0", "-0", "0.5", "1.5e3", "1e308",
        "-1e308", "1e309", "4.9e-324", "1E+2", "2147483648", "-2147483649", "1.0000000000000002",
        "123456789012345678901234567890.5", "0.000001", "7e18", "9.3e18", "-9.3e18",
    ]

    /// Millisecond dates near the limits (Apple sends milliseconds since 1970, V1 as strings).
    static let extremeMilliseconds: [String] = [
        "9223372036854775807", "-9223372036854775808", "9223372036854775", "-9223372036854775",
        "9223372036854775000", "253402300799999", "253402300800000", "-62135596800001", "-1", "0",
        "1e18", "99999999999999999999", "1700000000000.5", "", " ", "abc", "0x10", "+1700000000000",
    ]

    /// Dates as text for `?at=`, `from`, `to`.
    static let extremeDateTexts: [String] = [
        "9999-12-31T23:59:59Z", "0000-01-01T00:00:00Z", "0001-01-01T00:00:00Z", "1969-12-31T23:59:59Z",
        "-292277022657-01-27T08:29:52Z", "292277026596-12-04T15:30:07Z", "99999-01-01T00:00:00Z",
        "2025-13-45T25:61:61Z", "2025-02-30T00:00:00Z", "2025-01-01T00:00:00.123456789Z",
        "2025-01-01T00:00:00+99:99", "2025-01-01", "2025-01-01T00:00:00+0100", "9223372036854775807",
        "-9223372036854775808", "1e308", "now", "", "2025-01-01T00:00:00Z\u{0}", "NaN",
        String(repeating: "9", count: 400),
    ]

    /// Strings that are valid UTF-8 but unusual.
    static let oddStrings: [String] = [
        "", " ", "\t\n", "null", "true", "0", "-1", "../../etc/passwd", "%00", "%", "'; DROP TABLE accounts; --",
        "<script>alert(1)</script>", "\u{202E}gnp.exe", "🙂🙂🙂", "\u{FEFF}bom", "a\u{0301}", "\u{10FFFF}",
        "${jndi:ldap://x}", "\\", "\"", "com.example.one", "com.example.two", "pro.monthly",
        String(repeating: " ", count: 300), "a b  c   d    e",
    ]

    /// A string mutation of `original`: the class and the new value.
    static func mutateString(_ original: [UInt8], using random: inout FuzzRandom) -> (kind: String, value: FuzzJSON) {
        switch random.int(0...12) {
        case 0:
            var bytes = original
            bytes.insert(0, at: random.int(0...bytes.count))
            return ("NUL (\\u0000)", .string(bytes))
        case 1:
            let invalid: [[UInt8]] = [
                [0xFF], [0xFE, 0xFF], [0xC3], [0xC0, 0x80], [0xED, 0xA0, 0x80], [0xF4, 0x90, 0x80, 0x80], [0x80],
            ]
            var bytes = original
            bytes.insert(contentsOf: random.pick(invalid), at: random.int(0...bytes.count))
            return ("invalid UTF-8 (raw bytes)", .string(bytes))
        case 2:
            return ("lone surrogate (\\ud800)", .verbatim(Array("\"a\\ud800b\"".utf8)))
        case 3:
            let length = random.pick([256, 257, 1_000, 10_000, 100_000, 600_000])
            let unit = random.pick(["a", "1", " ", "é", "🙂"])
            return ("very long (\(length) × '\(unit)')", .text(String(repeating: unit, count: length)))
        case 4:
            return ("odd text", .text(random.pick(oddStrings)))
        case 5:
            return ("random bytes", .string(random.bytes(random.int(1...64))))
        case 6:
            var bytes = original
            bytes.insert(random.pick([0x01, 0x0A, 0x0D, 0x1B, 0x7F]), at: random.int(0...bytes.count))
            return ("control character", .string(bytes))
        case 7:
            return (
                "raw NUL byte inside the JSON string",
                .verbatim([UInt8(ascii: "\"")] + original + [0, UInt8(ascii: "\"")])
            )
        case 8:
            return ("number text", .text(random.pick(extremeNumbers)))
        case 9:
            return ("extreme millisecond text", .text(random.pick(extremeMilliseconds)))
        case 10:
            return ("whitespace-wrapped", .string(Array("  ".utf8) + original + Array("\n".utf8)))
        case 11:
            return ("repeated value", .string(Array(Array(repeating: original, count: random.int(2...50)).joined())))
        default:
            return ("empty", .text(""))
        }
    }

    /// A value of another type in place of the original.
    static func confuseType(using random: inout FuzzRandom) -> (kind: String, value: FuzzJSON) {
        switch random.int(0...6) {
        case 0: return ("type confusion: null", .null)
        case 1: return ("type confusion: bool", .bool(random.chance(0.5)))
        case 2: return ("type confusion: number", .number(random.pick(extremeNumbers)))
        case 3: return ("type confusion: array", .array([.text("x"), .int(1)]))
        case 4: return ("type confusion: object", .object([("a", .text("b"))]))
        case 5: return ("type confusion: empty array", .array([]))
        default: return ("type confusion: empty object", .object([]))
        }
    }

    /// A numeric mutation: extreme numbers as JSON numbers or (as Apple's V1 sends them) as strings.
    static func extremeNumber(using random: inout FuzzRandom) -> (kind: String, value: FuzzJSON) {
        if random.chance(0.5) {
            let text = random.pick(extremeNumbers)
            return ("extreme number \(text)", .number(text))
        }
        let text = random.pick(extremeMilliseconds)
        return ("extreme number as text \"\(text)\"", .text(text))
    }

    /// Random JSON, depth-bounded.
    static func randomJSON(depth: Int = 0, using random: inout FuzzRandom) -> FuzzJSON {
        let choice = depth > 3 ? random.int(0...3) : random.int(0...5)
        switch choice {
        case 0: return .null
        case 1: return .bool(random.chance(0.5))
        case 2: return .number(random.pick(extremeNumbers))
        case 3: return mutateString(Array("x".utf8), using: &random).value
        case 4: return .array((0..<random.int(0...4)).map { _ in randomJSON(depth: depth + 1, using: &random) })
        default:
            return .object(
                (0..<random.int(0...4)).map { index in
                    ("k\(index)", randomJSON(depth: depth + 1, using: &random))
                })
        }
    }

    /// A whole body that replaces a route's JSON: deep, huge, not JSON, truncated, bit-flipped.
    static func wholeBody(of seed: [UInt8], using random: inout FuzzRandom) -> (kind: String, body: [UInt8]) {
        switch random.int(0...11) {
        case 0:
            let depth = random.pick([64, 512, 5_000, 100_000, 400_000])
            return (
                "deep nesting (\(depth) arrays)",
                Array(repeating: UInt8(ascii: "["), count: depth) + Array(repeating: UInt8(ascii: "]"), count: depth)
            )
        case 1:
            let depth = random.pick([1_000, 50_000])
            var body: [UInt8] = []
            for _ in 0..<depth { body += Array("{\"a\":".utf8) }
            body += Array("1".utf8) + Array(repeating: UInt8(ascii: "}"), count: depth)
            return ("deep nesting (\(depth) objects)", body)
        case 2:
            let count = random.pick([10_000, 200_000])
            let items = Array(repeating: "1", count: count).joined(separator: ",")
            return ("huge array (\(count) numbers)", Array("{\"account_id\":[\(items)]}".utf8))
        case 3:
            let size = random.pick([1_048_000, 1_048_576, 1_048_577, 2_000_000])
            return (
                "huge string body (\(size) bytes)",
                Array("{\"account_id\":\"".utf8) + Array(repeating: UInt8(ascii: "a"), count: size) + Array("\"}".utf8)
            )
        case 4:
            return ("random JSON", randomJSON(using: &random).bytes)
        case 5:
            return ("random bytes", random.bytes(random.int(0...512)))
        case 6:
            return ("empty body", [])
        case 7:
            return ("truncated body", Array(seed.prefix(random.int(0...max(0, seed.count - 1)))))
        case 8:
            var body = seed
            for _ in 0..<random.int(1...4) where !body.isEmpty {
                body[random.int(0...(body.count - 1))] ^= UInt8(1) << UInt8(random.int(0...7))
            }
            return ("bit-flipped body", body)
        case 9:
            return ("JSON scalar body", Array(random.pick(["null", "0", "\"x\"", "[]", "true", "1e999"]).utf8))
        case 10:
            return ("trailing garbage", seed + Array(random.pick(["}", ",", "\u{0}", " x", "{}"]).utf8))
        default:
            return (
                "UTF-16 body",
                Array((String(decoding: seed, as: UTF8.self)).utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] })
            )
        }
    }

    /// A compact JWS (or any base64 token) corrupted: bit flips, truncation, extra dots, padding.
    static func corruptToken(_ token: String, using random: inout FuzzRandom) -> (kind: String, value: String) {
        var characters = Array(token)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_")
        switch random.int(0...11) {
        case 0:
            for _ in 0..<random.int(1...3) where !characters.isEmpty {
                characters[random.int(0...(characters.count - 1))] = random.pick(alphabet)
            }
            return ("token: flipped characters", String(characters))
        case 1:
            return ("token: truncated", String(characters.prefix(random.int(0...max(0, characters.count - 1)))))
        case 2:
            characters.insert(".", at: random.int(0...characters.count))
            return ("token: extra dot", String(characters))
        case 3:
            return ("token: padding", token + random.pick(["=", "==", "===", "=.="]))
        case 4:
            let parts = token.split(separator: ".", omittingEmptySubsequences: false)
            return ("token: segments swapped", parts.reversed().joined(separator: "."))
        case 5:
            let parts = token.split(separator: ".", omittingEmptySubsequences: false)
            return ("token: signature removed", parts.prefix(2).joined(separator: ".") + ".")
        case 6:
            return (
                "token: standard base64 characters",
                token.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/") + "+/"
            )
        case 7:
            return ("token: non-base64 characters", token + random.pick(["%", "!", " ", "\u{0}", "é", "\n"]))
        case 8:
            let parts = token.split(separator: ".", omittingEmptySubsequences: false)
            let header = parts.first.map(String.init) ?? ""
            return ("token: header only", header)
        case 9:
            return ("token: dots only", String(repeating: ".", count: random.int(1...5)))
        case 10:
            let parts = token.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 3 else { return ("token: doubled", token + token) }
            let payload = Data(random.bytes(random.int(0...200))).base64EncodedString()
                .replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
                .replacingOccurrences(of: "=", with: "")
            return ("token: payload replaced by random bytes", [parts[0], payload, parts[2]].joined(separator: "."))
        default:
            return ("token: doubled", token + "." + token)
        }
    }

    /// Mutates one member of `value` (somewhere inside it): the class (with the member's path) and the result.
    ///
    /// Half the time the member is a date (`…Date`, `…_date_ms`) or an identifier (`…Id`, `…_id`, `bid`), the
    /// fields whose values travel furthest (into arithmetic, SQL and reports).
    static func mutateMember(of value: FuzzJSON, using random: inout FuzzRandom) -> (kind: String, value: FuzzJSON) {
        let paths = value.paths
        guard !paths.isEmpty else { return ("random JSON", randomJSON(using: &random)) }
        let focused = paths.filter { path in
            let name = path.last?.name ?? ""
            return name.hasSuffix("Date") || name.hasSuffix("_date_ms") || name.hasSuffix("Id") || name.hasSuffix("_id")
                || name == "bid" || name == "bundleId"
        }
        let path = !focused.isEmpty && random.chance(0.5) ? random.pick(focused) : random.pick(paths)
        let field = path.dotted
        let current = value.value(at: path[...]) ?? .null
        let (kind, replacement): (String, FuzzJSON?)
        let name = path.last?.name ?? ""
        let isDate = name.hasSuffix("Date") || name.hasSuffix("_date_ms")
        switch isDate && random.chance(0.6) ? 4 : random.int(0...9) {
        case 0, 1, 2, 3:
            if case .string(let raw) = current {
                (kind, replacement) = mutateString(raw, using: &random)
            } else if case .number = current {
                (kind, replacement) = extremeNumber(using: &random)
            } else {
                (kind, replacement) = mutateString(Array("x".utf8), using: &random)
            }
        case 4, 5:
            (kind, replacement) = extremeNumber(using: &random)
        case 6:
            (kind, replacement) = confuseType(using: &random)
        case 7:
            (kind, replacement) = ("member removed", nil)
        case 8:
            let (innerKind, inner) = mutateString(Array("x".utf8), using: &random)
            return ("duplicate key with \(innerKind)", duplicating(path, in: value, with: inner))
        default:
            (kind, replacement) = ("random JSON", randomJSON(using: &random))
        }
        return ("\(field): \(kind)", value.replacing(path[...], with: replacement))
    }

    private static func duplicating(_ path: [FuzzPathComponent], in value: FuzzJSON, with inner: FuzzJSON) -> FuzzJSON {
        guard case .member(_, let key)? = path.last else { return value }
        let parentPath = path.dropLast()
        guard let parent = value.value(at: parentPath) else { return value }
        return value.replacing(parentPath, with: parent.appending(key, inner))
    }
}

extension String {
    /// Percent-encodes every byte of `bytes` that is not unreserved (so NUL and invalid UTF-8 reach the
    /// router as `%00`, `%FF`).
    static func percentEncoded(_ bytes: [UInt8]) -> String {
        var text = ""
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"),
                UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"), UInt8(ascii: "~"):
                text.unicodeScalars.append(UnicodeScalar(byte))
            default:
                text += String(format: "%%%02X", byte)
            }
        }
        return text
    }
}
