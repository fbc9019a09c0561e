import Hummingbird
import NIOCore
import SubLedgerCore
import SubLedgerUseCases

#if canImport(Glibc)
    import Glibc
#endif

/// The checks text from a client passes at the HTTP edge, before it is decoded, stored or looked up.
///
/// libpq refuses text with NUL, and invalid UTF-8 would be stored as something else than what was sent; both
/// are client mistakes and answer 400 `invalid_text` here, instead of failing in the database. Identifiers are
/// held to their `IdentifierRule` (shape and length), so nothing unbounded reaches a report or a log.
enum RequestText {
    /// The longest free text accepted where no identifier rule applies (the admin page's search), in bytes.
    static let maximumFreeTextLength = 255

    /// Throws 400 `invalid_text` when `body` is not UTF-8 or a JSON string in it escapes NUL (`\u0000`).
    ///
    /// A JSON string cannot hold a raw NUL (control characters must be escaped), so looking for the escape
    /// finds every NUL the decoder would produce, without decoding twice.
    static func checkBody(_ body: ByteBuffer) throws {
        let isText = body.withUnsafeReadableBytes { bytes in
            isUTF8(bytes) && !containsEscapedNUL(bytes)
        }
        guard isText else {
            throw APIError.badRequest(.invalidText, "the body must be UTF-8 text without NUL characters")
        }
    }

    /// Whether `bytes` are UTF-8. An ASCII body (as pushed notifications are) is told by one pass over its bytes;
    /// any other is validated by building a `String` from it.
    static func isUTF8(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var union: UInt8 = 0
        for byte in bytes { union |= byte }
        return union < 0x80 || String(validating: bytes, as: UTF8.self) != nil
    }

    /// Whether `bytes` hold `\u0000` where the backslash itself is not escaped: `containsEscapedNUL(_:)` over a
    /// body, which jumps from one backslash to the next with `memchr` rather than looking at each byte (a
    /// notification's body of 12 KB has none).
    static func containsEscapedNUL(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let base = bytes.baseAddress else { return false }
        let backslash = UInt8(ascii: "\\")
        var index = 0
        while index < bytes.count {
            guard let found = memchr(base + index, Int32(backslash), bytes.count - index) else { return false }
            index = base.distance(to: UnsafeRawPointer(found))
            var backslashes = 0
            while index < bytes.count, bytes[index] == backslash {
                backslashes += 1
                index += 1
            }
            if backslashes % 2 == 1, bytes[index...].starts(with: escapedNUL) { return true }
        }
        return false
    }

    /// What follows the backslash of an escaped NUL.
    private static let escapedNUL = Array("u0000".utf8)

    /// Whether `bytes` hold `\u0000` where the backslash itself is not escaped (byte by byte).
    static func containsEscapedNUL(_ bytes: some Collection<UInt8>) -> Bool {
        let escape = Array("u0000".utf8)
        var backslashes = 0
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\\") {
                backslashes += 1
            } else {
                if byte == UInt8(ascii: "u"), backslashes % 2 == 1, bytes[index...].starts(with: escape) {
                    return true
                }
                backslashes = 0
            }
            index = bytes.index(after: index)
        }
        return false
    }

    /// `raw` when it follows `rule`; otherwise 400 with `code` and the rule (never the value) as the message.
    static func identifier(_ raw: String, _ rule: IdentifierRule, code: APIError.Code) throws -> String {
        guard rule.accepts(raw) else { throw APIError.badRequest(code, rule.summary) }
        return raw
    }

    /// Free text (a search): at most `maximumFreeTextLength` bytes, no control characters, nothing that was
    /// invalid UTF-8 (decoded as U+FFFD); otherwise 400 `code`.
    static func freeText(_ raw: String, code: APIError.Code) throws -> String {
        let isClean = raw.unicodeScalars.allSatisfy { scalar in
            !(scalar.value < 0x20 || scalar.value == 0x7F || scalar == "\u{FFFD}")
        }
        guard raw.utf8.count <= maximumFreeTextLength, isClean else {
            throw APIError.badRequest(
                code, "the text has at most \(maximumFreeTextLength) bytes and no control characters")
        }
        return raw
    }
}
