import Foundation
import SubLedgerCore

// Apple's legacy JSON (verifyReceipt, V1 notifications) sends numbers and booleans as strings
// ("1698148900000", "true", "1") in some fields and as JSON numbers in others, and the choice has
// changed over the years. These helpers accept every spelling and treat an unreadable value as absent
// rather than failing the whole receipt: one odd field must not turn a valid receipt into an error.

extension KeyedDecodingContainer {
    /// A string field that Apple may also send as a number.
    func lenientString(_ key: Key) -> String? {
        if let value = try? decodeIfPresent(String.self, forKey: key) { return value }
        if let value = try? decodeIfPresent(Int64.self, forKey: key) { return String(value) }
        if let value = try? decodeIfPresent(Double.self, forKey: key) {
            return value.rounded() == value && abs(value) < 9.0e15 ? String(Int64(value)) : String(value)
        }
        if let value = try? decodeIfPresent(Bool.self, forKey: key) { return value ? "true" : "false" }
        return nil
    }

    /// An integer field sent as a JSON number or a decimal string.
    func lenientInt64(_ key: Key) -> Int64? {
        if let value = try? decodeIfPresent(Int64.self, forKey: key) { return value }
        if let text = try? decodeIfPresent(String.self, forKey: key) {
            return Int64(text.trimmingCharacters(in: .whitespaces))
        }
        if let value = try? decodeIfPresent(Double.self, forKey: key), value.rounded() == value,
            abs(value) < 9.0e15
        {
            return Int64(value)
        }
        return nil
    }

    /// An `Int` field sent as a JSON number or a decimal string.
    func lenientInt(_ key: Key) -> Int? {
        lenientInt64(key).flatMap { Int(exactly: $0) }
    }

    /// A boolean sent as `true`, `"true"`, `1` or `"1"` (and their negatives).
    func lenientBool(_ key: Key) -> Bool? {
        if let value = try? decodeIfPresent(Bool.self, forKey: key) { return value }
        if let value = lenientString(key) {
            switch value.lowercased() {
            case "true", "1", "yes": return true
            case "false", "0", "no": return false
            default: return nil
            }
        }
        return nil
    }

    /// A millisecond timestamp sent as a number or a decimal string, a fraction truncated toward the past.
    ///
    /// Text that is not a number (a formatted date) is absent, as elsewhere; but a number too large for
    /// `Int64` saturates rather than reading as absent, so that the mapping refuses it by name
    /// (`PayloadMappingError.dateOutOfRange`) instead of quietly dropping an expiry or a refund.
    func lenientMilliseconds(_ key: Key) -> Int64? {
        if let value = try? decodeIfPresent(Int64.self, forKey: key) { return value }
        if let value = try? decodeIfPresent(Double.self, forKey: key) { return Self.wholeMilliseconds(value) }
        guard let text = try? decodeIfPresent(String.self, forKey: key) else { return nil }
        let trimmed = text.trimmingCharacters(in: .whitespaces)
        if let value = Int64(trimmed) { return value }
        guard Self.isDecimalNumber(trimmed), let value = Double(trimmed) else { return nil }
        return Self.wholeMilliseconds(value)
    }

    private static func wholeMilliseconds(_ value: Double) -> Int64? {
        guard value.isFinite else { return nil }
        let whole = value.rounded(.down)
        return Int64(exactly: whole) ?? (whole < 0 ? .min : .max)
    }

    /// `-?[0-9]+(\.[0-9]+)?`: what Apple's millisecond fields hold, and nothing `Double` would also read
    /// (`inf`, `nan`, hex, exponents).
    private static func isDecimalNumber(_ text: String) -> Bool {
        var bytes = Substring(text).utf8[...]
        if bytes.first == UInt8(ascii: "-") { bytes = bytes.dropFirst() }
        let isDigit = { (byte: UInt8) in byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
        let integer = bytes.prefix(while: isDigit)
        guard !integer.isEmpty else { return false }
        let rest = bytes.dropFirst(integer.count)
        if rest.isEmpty { return true }
        guard rest.first == UInt8(ascii: "."), rest.count > 1 else { return false }
        return rest.dropFirst().allSatisfy(isDigit)
    }
}

extension KeyedDecodingContainer {
    /// An array of objects, or a single object standing for a one-element array (pre-iOS 7
    /// `latest_receipt_info`); absent or unreadable gives an empty array.
    func lenientArray<Element: Decodable>(_ type: Element.Type, _ key: Key) -> [Element] {
        if let elements = try? decodeIfPresent([Element].self, forKey: key) { return elements }
        if let element = try? decodeIfPresent(Element.self, forKey: key) { return [element] }
        return []
    }
}
