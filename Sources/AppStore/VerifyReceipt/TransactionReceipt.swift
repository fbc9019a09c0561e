import Foundation

/// Reads an iOS 6 style transaction receipt (`SKPaymentTransaction.transactionReceipt`) offline.
///
/// Such a receipt is base64 of an old-style property list text whose `"purchase-info"` entry is, in turn,
/// base64 of another such text holding `"transaction-id" = "…";`. Like Apple's `ReceiptUtility`, this reads
/// that one id and nothing else, without checking the signature: use it only to ask the App Store Server API
/// (whose signed answers are verified), never to grant anything.
public enum TransactionReceipt {
    /// The largest receipt text read; real transaction receipts are a few kilobytes.
    public static let maximumCharacters = 1024 * 1024

    /// The transaction id inside a base64 transaction receipt, or `nil` when the text is not one.
    ///
    /// Matches what Apple's library accepts: strict base64 at both levels, UTF-8 text, an entry written
    /// `"key" = "value";` with whitespace around `=`, a value of base64 characters; the first such entry wins.
    public static func transactionID(base64 text: String) -> String? {
        guard text.utf8.count <= maximumCharacters,
            let outer = Data(base64Encoded: text), let outerText = String(bytes: outer, encoding: .utf8),
            let purchaseInfo = entry("purchase-info", in: outerText),
            let inner = Data(base64Encoded: purchaseInfo), let innerText = String(bytes: inner, encoding: .utf8)
        else { return nil }
        return entry("transaction-id", in: innerText)
    }

    /// The value of the first `"key" = "value";` entry whose value is base64 characters.
    ///
    /// A linear scan: each candidate reads only up to the next quote, so no input costs more than a pass.
    static func entry(_ key: String, in text: String) -> String? {
        let bytes = Array(text.utf8)
        let quotedKey = Array("\"\(key)\"".utf8)
        var start = 0
        while let found = firstIndex(of: quotedKey, in: bytes, from: start) {
            start = found + 1
            var index = found + quotedKey.count
            let beforeEquals = skipWhitespace(bytes, from: index)
            guard beforeEquals > index, beforeEquals < bytes.count, bytes[beforeEquals] == UInt8(ascii: "=") else {
                continue
            }
            index = beforeEquals + 1
            let valueQuote = skipWhitespace(bytes, from: index)
            guard valueQuote > index, valueQuote < bytes.count, bytes[valueQuote] == UInt8(ascii: "\"") else {
                continue
            }
            let valueStart = valueQuote + 1
            var valueEnd = valueStart
            while valueEnd < bytes.count, isBase64Character(bytes[valueEnd]) { valueEnd += 1 }
            guard valueEnd > valueStart, valueEnd + 1 < bytes.count, bytes[valueEnd] == UInt8(ascii: "\""),
                bytes[valueEnd + 1] == UInt8(ascii: ";")
            else { continue }
            return String(decoding: bytes[valueStart..<valueEnd], as: UTF8.self)
        }
        return nil
    }

    private static func firstIndex(of needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard !needle.isEmpty, bytes.count >= needle.count, start <= bytes.count - needle.count else { return nil }
        var index = start
        while index <= bytes.count - needle.count {
            if bytes[index] == needle[0], bytes[index..<(index + needle.count)].elementsEqual(needle) { return index }
            index += 1
        }
        return nil
    }

    private static func skipWhitespace(_ bytes: [UInt8], from start: Int) -> Int {
        var index = start
        // Space, tab, line feed, vertical tab, form feed, carriage return: what `\s` matches in ASCII.
        while index < bytes.count, bytes[index] == 0x20 || (0x09...0x0D).contains(bytes[index]) { index += 1 }
        return index
    }

    private static func isBase64Character(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: "="):
            return true
        default:
            return false
        }
    }
}
