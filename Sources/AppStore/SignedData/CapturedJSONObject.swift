import SubLedgerCore

/// A JSON object's members as raw text, located by the one scan of `UniqueKeyJSON.members(of:)`, with readers
/// for the plain forms Apple writes its signed payloads in.
///
/// Each reader gives the value `JSONDecoder` would give for an optional member of that type (`nil` when the
/// member is absent or `null`) or throws `NotPlain`: for a form it does not read (a number with a fraction or an
/// exponent, `-0`) and for a value the decoder refuses (a wrong type, a number out of range, a date outside
/// `Instant.acceptedRange`). A caller that meets `NotPlain` decodes the text with `JSONDecoder` instead, which
/// then reads it or refuses it exactly as it always has. The scan has already checked that the text is UTF-8
/// JSON without repeated keys, so the readers only look at each value's form.
struct CapturedJSONObject: Sendable {
    /// The whole text the object was found in; the ranges index it.
    let text: [UInt8]
    /// Where each member's value lies (surrounding whitespace left out).
    let members: [String: Range<Int>]
    /// For the top-level object: the members of each member whose value is an object, by that member's name.
    /// `nil` for a nested object, whose own members' members the scan does not locate.
    let nestedMembers: [String: [String: Range<Int>]]?

    /// A member that is not read plainly; see the type's discussion.
    struct NotPlain: Error {}

    /// The raw text of a member's value, or `nil` when the object has no such member.
    subscript(name: String) -> ArraySlice<UInt8>? {
        members[name].map { text[$0] }
    }

    /// The member's text, or `nil` when the member is absent or `null`.
    private func present(_ key: some CodingKey) -> ArraySlice<UInt8>? {
        guard let value = self[key.stringValue], value.first != UInt8(ascii: "n") else { return nil }
        return value
    }

    /// A string member.
    func string(_ key: some CodingKey) throws(NotPlain) -> String? {
        guard let value = present(key) else { return nil }
        return try Self.plainString(value)
    }

    /// An array of strings (`null` elements are refused, as `JSONDecoder` refuses them).
    func strings(_ key: some CodingKey) throws(NotPlain) -> [String]? {
        guard let value = present(key) else { return nil }
        guard value.first == UInt8(ascii: "[") else { throw NotPlain() }
        var strings: [String] = []
        var index = value.startIndex + 1
        let end = value.endIndex - 1  // the closing bracket
        func skipSpace() {
            while index < end, Self.isSpace(value[index]) { index += 1 }
        }
        skipSpace()
        while index < end {
            guard value[index] == UInt8(ascii: "\"") else { throw NotPlain() }
            // The scan validated the text, so the string closes at the first quote that no backslash escapes.
            var close = index + 1
            while close < end, value[close] != UInt8(ascii: "\"") { close += value[close] == 0x5C ? 2 : 1 }
            guard close < end else { throw NotPlain() }
            strings.append(try Self.plainString(value[index...close]))
            index = close + 1
            skipSpace()
            if index < end {
                // A comma (the scan allowed nothing else here), then the next element.
                index += 1
                skipSpace()
            }
        }
        return strings
    }

    /// A `Bool` member: `true` or `false`.
    func bool(_ key: some CodingKey) throws(NotPlain) -> Bool? {
        guard let value = present(key) else { return nil }
        switch value.first {
        case UInt8(ascii: "t"): return true
        case UInt8(ascii: "f"): return false
        default: throw NotPlain()
        }
    }

    /// An `Int64` member written as a whole number in range.
    func int64(_ key: some CodingKey) throws(NotPlain) -> Int64? {
        guard let value = present(key) else { return nil }
        return try Self.wholeNumber(value)
    }

    /// An `Int` member written as a whole number in range.
    func int(_ key: some CodingKey) throws(NotPlain) -> Int? {
        guard let value = present(key) else { return nil }
        guard let number = Int(exactly: try Self.wholeNumber(value)) else { throw NotPlain() }
        return number
    }

    /// An `@AppleMilliseconds` member: a whole number of milliseconds inside `Instant.acceptedRange`.
    func milliseconds(_ key: some CodingKey) throws(NotPlain) -> Int64? {
        guard let value = present(key) else { return nil }
        guard let instant = Instant(acceptedMillisecondsSince1970: try Self.wholeNumber(value)) else {
            throw NotPlain()
        }
        return instant.millisecondsSince1970
    }

    /// A member whose value is an object, read by `read` from its members; only the top-level object's members
    /// have theirs located.
    func object<Value>(
        _ key: some CodingKey, _ read: (CapturedJSONObject) throws(NotPlain) -> Value
    ) throws(NotPlain) -> Value? {
        guard let value = present(key) else { return nil }
        guard value.first == UInt8(ascii: "{"), let nestedMembers else { throw NotPlain() }
        return try read(
            CapturedJSONObject(text: text, members: nestedMembers[key.stringValue] ?? [:], nestedMembers: nil))
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// A quoted string, as its characters.
    private static func plainString(_ value: ArraySlice<UInt8>) throws(NotPlain) -> String {
        guard value.first == UInt8(ascii: "\"") else { throw NotPlain() }
        let inner = value.dropFirst().dropLast()
        // Without a backslash the bytes are the value (the scan validated them as UTF-8 without control
        // characters). Escapes are rare in Apple's payloads; they are read as the scan reads keys.
        guard inner.contains(0x5C) else { return String(decoding: inner, as: UTF8.self) }
        guard let string = UniqueKeyJSON.unescapedString(value) else { throw NotPlain() }
        return string
    }

    /// JSON number text made of an optional minus and digits only, when it fits `Int64`; never `-0`. Built
    /// downwards from zero, so that `Int64.min` is read without overflow.
    private static func wholeNumber(_ value: ArraySlice<UInt8>) throws(NotPlain) -> Int64 {
        var digits = value[...]
        let negative = digits.first == UInt8(ascii: "-")
        if negative { digits = digits.dropFirst() }
        guard !digits.isEmpty, !(negative && digits.first == UInt8(ascii: "0")) else { throw NotPlain() }
        var number: Int64 = 0
        for byte in digits {
            guard byte >= UInt8(ascii: "0"), byte <= UInt8(ascii: "9") else { throw NotPlain() }
            let (tens, overflow) = number.multipliedReportingOverflow(by: 10)
            let (next, borrow) = tens.subtractingReportingOverflow(Int64(byte - UInt8(ascii: "0")))
            guard !overflow, !borrow else { throw NotPlain() }
            number = next
        }
        if negative { return number }
        let (positive, overflow) = Int64(0).subtractingReportingOverflow(number)
        guard !overflow else { throw NotPlain() }
        return positive
    }
}
