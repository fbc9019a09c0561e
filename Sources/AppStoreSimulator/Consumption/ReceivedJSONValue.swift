/// A JSON value as received, keeping booleans apart from numbers (Apple refuses `1` for `true`).
enum ReceivedJSONValue: Decodable, Sendable {
    case bool(Bool)
    case number(Double)
    case string(String)
    case null
    case array([ReceivedJSONValue])
    case object([String: ReceivedJSONValue])

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if container.decodeNil() {
            self = .null
        } else if let value = try? container.decode(Bool.self) {
            self = .bool(value)
        } else if let value = try? container.decode(Double.self) {
            self = .number(value)
        } else if let value = try? container.decode(String.self) {
            self = .string(value)
        } else if let value = try? container.decode([ReceivedJSONValue].self) {
            self = .array(value)
        } else {
            self = .object(try container.decode([String: ReceivedJSONValue].self))
        }
    }

    var bool: Bool? {
        if case .bool(let value) = self { return value }
        return nil
    }

    var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// A whole number, within 32 bits (Apple's `int32`).
    var integer: Int? {
        guard case .number(let value) = self, value.rounded() == value, abs(value) <= 2_147_483_647 else { return nil }
        return Int(value)
    }
}
