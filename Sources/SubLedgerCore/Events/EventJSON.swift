/// A JSON value whose object members keep their order, written without Foundation: the body of a webhook
/// event is built in the core, so what a receiver gets is a pure function of the ledger's facts.
public indirect enum EventJSON: Sendable, Equatable {
    case string(String)
    case integer(Int64)
    case bool(Bool)
    case null
    case array([EventJSON])
    case object([Member])

    /// One member of an object, in the order it is written.
    public struct Member: Sendable, Equatable {
        public var key: String
        public var value: EventJSON

        public init(_ key: String, _ value: EventJSON) {
            self.key = key
            self.value = value
        }
    }

    /// A string, or `null` when absent.
    public static func optional(_ text: String?) -> EventJSON { text.map(EventJSON.string) ?? .null }

    /// An instant as the API writes times: RFC 3339, UTC, milliseconds (`2026-11-22T10:15:00.000Z`).
    public static func time(_ instant: Instant?) -> EventJSON { instant.map { .string(RFC3339.format($0)) } ?? .null }

    /// The compact JSON text.
    public var text: String {
        var output = ""
        write(to: &output)
        return output
    }

    func write(to output: inout String) {
        switch self {
        case .string(let value): Self.writeString(value, to: &output)
        case .integer(let value): output += String(value)
        case .bool(let value): output += value ? "true" : "false"
        case .null: output += "null"
        case .array(let values):
            output += "["
            for (index, value) in values.enumerated() {
                if index > 0 { output += "," }
                value.write(to: &output)
            }
            output += "]"
        case .object(let members):
            output += "{"
            for (index, member) in members.enumerated() {
                if index > 0 { output += "," }
                Self.writeString(member.key, to: &output)
                output += ":"
                member.value.write(to: &output)
            }
            output += "}"
        }
    }

    static func writeString(_ value: String, to output: inout String) {
        output += "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            default:
                if scalar.value < 0x20 {
                    let hex = String(scalar.value, radix: 16)
                    output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    output.unicodeScalars.append(scalar)
                }
            }
        }
        output += "\""
    }
}
