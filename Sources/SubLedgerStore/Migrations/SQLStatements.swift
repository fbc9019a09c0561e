/// The statements of a SQL script, split where PostgreSQL would end them: at each `;` outside quoted text,
/// dollar-quoted bodies, comments and parentheses. The migrator runs a step one statement at a time, because a Citus
/// coordinator propagates some DDL to the workers by resending the text it was given, and refuses that text when it
/// holds several statements ("cannot insert multiple commands into a prepared statement").
///
/// Recognised: `'…'` with `''` inside, `E'…'` with backslash escapes, `"…"` identifiers, `$$…$$` and `$tag$…$tag$`
/// bodies, `--` comments to the end of the line and nested `/* … */` comments. A statement keeps its own text
/// (comments included); statements holding nothing but whitespace and comments are left out.
public enum SQLStatements {
    public static func split(_ script: String) -> [String] {
        let bytes = Array(script.utf8)
        var statements: [String] = []
        var start = 0
        var index = 0
        var depth = 0
        var meaningful = false

        func finish(upTo end: Int) {
            if meaningful {
                let text = String(decoding: bytes[start..<end], as: UTF8.self)
                statements.append(text.trimmingWhitespace())
            }
            meaningful = false
        }

        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "-") where next(bytes, index) == UInt8(ascii: "-"):
                while index < bytes.count, bytes[index] != UInt8(ascii: "\n") { index += 1 }
                continue
            case UInt8(ascii: "/") where next(bytes, index) == UInt8(ascii: "*"):
                index = endOfBlockComment(bytes, from: index)
                continue
            case UInt8(ascii: "'"):
                let escapes =
                    index > 0 && (bytes[index - 1] | 0x20) == UInt8(ascii: "e") && !isWordByte(bytes, index - 2)
                index = endOfQuoted(bytes, from: index, quote: UInt8(ascii: "'"), backslashEscapes: escapes)
                meaningful = true
                continue
            case UInt8(ascii: "\""):
                index = endOfQuoted(bytes, from: index, quote: UInt8(ascii: "\""), backslashEscapes: false)
                meaningful = true
                continue
            case UInt8(ascii: "$"):
                if let end = endOfDollarQuoted(bytes, from: index) {
                    index = end
                    meaningful = true
                    continue
                }
                meaningful = true
            case UInt8(ascii: "("):
                depth += 1
                meaningful = true
            case UInt8(ascii: ")"):
                depth = max(0, depth - 1)
                meaningful = true
            case UInt8(ascii: ";") where depth == 0:
                finish(upTo: index + 1)
                start = index + 1
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"):
                break
            default:
                meaningful = true
            }
            index += 1
        }
        finish(upTo: bytes.count)
        return statements
    }

    private static func next(_ bytes: [UInt8], _ index: Int) -> UInt8? {
        index + 1 < bytes.count ? bytes[index + 1] : nil
    }

    /// Whether `bytes[index]` is part of an identifier (so an `e` before a quote ends a word, not an `E'…'` prefix).
    private static func isWordByte(_ bytes: [UInt8], _ index: Int) -> Bool {
        guard index >= 0, index < bytes.count else { return false }
        let byte = bytes[index]
        return byte == UInt8(ascii: "_") || byte >= 0x80 || (byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9"))
            || ((byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z"))
    }

    /// The index after the comment opened at `index` (`/*`), nested comments included; the end of the text when it
    /// is not closed.
    private static func endOfBlockComment(_ bytes: [UInt8], from index: Int) -> Int {
        var depth = 0
        var i = index
        while i < bytes.count {
            if bytes[i] == UInt8(ascii: "/"), next(bytes, i) == UInt8(ascii: "*") {
                depth += 1
                i += 2
            } else if bytes[i] == UInt8(ascii: "*"), next(bytes, i) == UInt8(ascii: "/") {
                depth -= 1
                i += 2
                if depth == 0 { return i }
            } else {
                i += 1
            }
        }
        return bytes.count
    }

    /// The index after the quoted text opened at `index`; a doubled quote stays inside, and with `backslashEscapes`
    /// so does any byte after a backslash.
    private static func endOfQuoted(_ bytes: [UInt8], from index: Int, quote: UInt8, backslashEscapes: Bool) -> Int {
        var i = index + 1
        while i < bytes.count {
            if backslashEscapes, bytes[i] == UInt8(ascii: "\\") {
                i += 2
            } else if bytes[i] == quote {
                if next(bytes, i) == quote {
                    i += 2
                } else {
                    return i + 1
                }
            } else {
                i += 1
            }
        }
        return bytes.count
    }

    /// The index after the dollar-quoted body opened at `index` (`$$` or `$tag$`), or nil when the `$` opens none
    /// (a parameter such as `$1`, or a `$` inside an identifier).
    private static func endOfDollarQuoted(_ bytes: [UInt8], from index: Int) -> Int? {
        if isWordByte(bytes, index - 1) { return nil }
        var i = index + 1
        while i < bytes.count, bytes[i] != UInt8(ascii: "$") {
            let byte = bytes[i]
            let letter = (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z")
            let digit = byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")
            guard letter || byte == UInt8(ascii: "_") || byte >= 0x80 || (digit && i > index + 1) else { return nil }
            i += 1
        }
        guard i < bytes.count else { return nil }
        let tag = Array(bytes[index...i])
        var j = i + 1
        while j + tag.count <= bytes.count {
            if bytes[j] == UInt8(ascii: "$"), Array(bytes[j..<(j + tag.count)]) == tag { return j + tag.count }
            j += 1
        }
        return bytes.count
    }
}

extension String {
    fileprivate func trimmingWhitespace() -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == "\r" }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
