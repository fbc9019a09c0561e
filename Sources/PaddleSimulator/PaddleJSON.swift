import Foundation

/// A JSON value as paddle-sim keeps its entities: each Paddle entity is a JSON object, changed in place and written
/// out as Paddle would send it (keys sorted, so answers are byte-stable for a seed).
public enum PaddleJSON: Sendable, Hashable {
    case null
    case bool(Bool)
    case int(Int64)
    case string(String)
    case array([PaddleJSON])
    case object([String: PaddleJSON])

    public subscript(key: String) -> PaddleJSON? {
        get {
            if case .object(let fields) = self { return fields[key] }
            return nil
        }
        set {
            if case .object(var fields) = self {
                fields[key] = newValue
                self = .object(fields)
            }
        }
    }

    public var string: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    public var int: Int64? {
        if case .int(let number) = self { return number }
        return nil
    }

    public var array: [PaddleJSON]? {
        if case .array(let items) = self { return items }
        return nil
    }

    public var isNull: Bool { self == .null }

    /// The JSON text, keys sorted.
    public var data: Data { Data(text.utf8) }

    public var text: String {
        var text = ""
        write(into: &text)
        return text
    }

    /// A value read by `JSONSerialization` (a request body), or nil where it holds what JSON cannot (a fraction is
    /// kept as its text: Paddle's amounts and rates are strings, so no field here is a JSON fraction).
    init?(any value: Any) {
        switch value {
        case is NSNull: self = .null
        case let number as NSNumber:
            // A JSON true or false arrives as a number whose Objective-C type is `c` (char).
            if String(cString: number.objCType) == "c" {
                self = .bool(number.boolValue)
            } else if let whole = Int64(exactly: number.doubleValue), number.stringValue == String(whole) {
                self = .int(whole)
            } else {
                self = .string(number.stringValue)
            }
        case let text as String: self = .string(text)
        case let items as [Any]:
            var values: [PaddleJSON] = []
            for item in items {
                guard let value = PaddleJSON(any: item) else { return nil }
                values.append(value)
            }
            self = .array(values)
        case let fields as [String: Any]:
            var values: [String: PaddleJSON] = [:]
            for (key, item) in fields {
                guard let value = PaddleJSON(any: item) else { return nil }
                values[key] = value
            }
            self = .object(values)
        default: return nil
        }
    }

    private func write(into text: inout String) {
        switch self {
        case .null: text += "null"
        case .bool(let flag): text += flag ? "true" : "false"
        case .int(let number): text += String(number)
        case .string(let string): Self.quote(string, into: &text)
        case .array(let items):
            text += "["
            for (index, item) in items.enumerated() {
                if index > 0 { text += "," }
                item.write(into: &text)
            }
            text += "]"
        case .object(let fields):
            text += "{"
            for (index, key) in fields.keys.sorted().enumerated() {
                if index > 0 { text += "," }
                Self.quote(key, into: &text)
                text += ":"
                fields[key, default: .null].write(into: &text)
            }
            text += "}"
        }
    }

    private static func quote(_ string: String, into text: inout String) {
        text += "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": text += "\\\""
            case "\\": text += "\\\\"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            case "\t": text += "\\t"
            case _ where scalar.value < 0x20: text += String(format: "\\u%04x", scalar.value)
            default: text.unicodeScalars.append(scalar)
            }
        }
        text += "\""
    }
}

extension PaddleJSON: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByNilLiteral, ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral
{
    public init(stringLiteral value: String) { self = .string(value) }
    public init(integerLiteral value: Int64) { self = .int(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(nilLiteral: ()) { self = .null }
    public init(arrayLiteral elements: PaddleJSON...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, PaddleJSON)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }

    init(_ string: String?) { self = string.map(PaddleJSON.string) ?? .null }
}
