/// A JSON value whose object members keep their order, written by `JSONWriter`: the body of a webhook
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

    /// The compact JSON text, as `JSONWriter` writes it.
    public var text: String {
        var writer = JSONWriter()
        write(to: &writer)
        return writer.text
    }

    public func write(to writer: inout JSONWriter) {
        switch self {
        case .string(let value): writer.string(value)
        case .integer(let value): writer.integer(value)
        case .bool(let value): writer.bool(value)
        case .null: writer.null()
        case .array(let values):
            writer.beginArray()
            for value in values { value.write(to: &writer) }
            writer.endArray()
        case .object(let members):
            writer.beginObject()
            for member in members {
                writer.escapedKey(member.key)
                member.value.write(to: &writer)
            }
            writer.endObject()
        }
    }
}
