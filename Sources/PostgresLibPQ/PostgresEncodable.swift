import Foundation

/// A Swift value that can be sent as a query parameter; lets callers write `[name, count, .null]`.
public protocol PostgresEncodable: Sendable {
    /// The parameter to send for this value.
    var postgresValue: PostgresValue { get }
}

extension PostgresValue: PostgresEncodable {
    public var postgresValue: PostgresValue { self }
}

// Static factories on the protocol (constrained to PostgresValue) so they also work as implicit members
// in `[any PostgresEncodable]` literals: `[.text(name), .int64(id), .null]`.
extension PostgresEncodable where Self == PostgresValue {
    /// SQL NULL; the server infers its type.
    public static var null: PostgresValue { PostgresValue(storage: .null, dataType: .unspecified) }

    /// A `text` value.
    public static func text(_ value: String) -> PostgresValue {
        PostgresValue(storage: .text(value), dataType: .text)
    }

    /// An `int8` value.
    public static func int(_ value: Int) -> PostgresValue {
        PostgresValue(storage: .text(String(value)), dataType: .int8)
    }

    /// An `int4` value.
    public static func int32(_ value: Int32) -> PostgresValue {
        PostgresValue(storage: .text(String(value)), dataType: .int4)
    }

    /// An `int8` value.
    public static func int64(_ value: Int64) -> PostgresValue {
        PostgresValue(storage: .text(String(value)), dataType: .int8)
    }

    /// A `bool` value.
    public static func bool(_ value: Bool) -> PostgresValue {
        PostgresValue(storage: .text(value ? "t" : "f"), dataType: .bool)
    }

    /// A `float8` value; NaN and infinities are sent in PostgreSQL's spelling.
    public static func double(_ value: Double) -> PostgresValue {
        let text: String
        if value.isNaN {
            text = "NaN"
        } else if value.isInfinite {
            text = value < 0 ? "-Infinity" : "Infinity"
        } else {
            // Swift's description is the shortest text that round-trips exactly.
            text = value.description
        }
        return PostgresValue(storage: .text(text), dataType: .float8)
    }

    /// A `numeric` value from its decimal text, e.g. `"9.99"` (kept as text to avoid binary rounding).
    public static func numeric(_ decimalText: String) -> PostgresValue {
        PostgresValue(storage: .text(decimalText), dataType: .numeric)
    }

    /// A `timestamptz` value from a `Date`, to the microsecond.
    public static func timestamptz(_ date: Date) -> PostgresValue {
        .timestamptz(PostgresTimestamp(date))
    }

    /// A `timestamptz` value from milliseconds since 1970 (Apple's representation), exactly.
    public static func timestamptz(millisecondsSince1970: Int64) -> PostgresValue {
        .timestamptz(PostgresTimestamp(millisecondsSince1970: millisecondsSince1970))
    }

    /// A `timestamptz` value, exactly.
    public static func timestamptz(_ timestamp: PostgresTimestamp) -> PostgresValue {
        PostgresValue(storage: .text(timestamp.postgresText), dataType: .timestamptz)
    }

    /// A `uuid` value.
    public static func uuid(_ value: UUID) -> PostgresValue {
        PostgresValue(storage: .text(value.uuidString.lowercased()), dataType: .uuid)
    }

    /// A `jsonb` value from JSON text.
    public static func jsonb(_ json: String) -> PostgresValue {
        PostgresValue(storage: .text(json), dataType: .jsonb)
    }

    /// A `jsonb` value from UTF-8 JSON bytes.
    public static func jsonb(_ json: Data) -> PostgresValue {
        PostgresValue(storage: .text(String(decoding: json, as: UTF8.self)), dataType: .jsonb)
    }

    /// A `jsonb` value encoding `value` with `encoder`.
    public static func jsonb(encoding value: some Encodable, encoder: JSONEncoder = JSONEncoder()) throws
        -> PostgresValue
    {
        .jsonb(try encoder.encode(value))
    }

    /// A `bytea` value, sent in binary so no escaping is involved.
    public static func bytea(_ bytes: [UInt8]) -> PostgresValue {
        PostgresValue(storage: .binary(bytes), dataType: .bytea)
    }

    /// A `bytea` value, sent in binary so no escaping is involved.
    public static func bytea(_ data: Data) -> PostgresValue {
        PostgresValue(storage: .binary([UInt8](data)), dataType: .bytea)
    }
}

extension String: PostgresEncodable {
    public var postgresValue: PostgresValue { .text(self) }
}

extension Substring: PostgresEncodable {
    public var postgresValue: PostgresValue { .text(String(self)) }
}

extension Int: PostgresEncodable {
    public var postgresValue: PostgresValue { .int(self) }
}

extension Int16: PostgresEncodable {
    public var postgresValue: PostgresValue { PostgresValue(storage: .text(String(self)), dataType: .int2) }
}

extension Int32: PostgresEncodable {
    public var postgresValue: PostgresValue { .int32(self) }
}

extension Int64: PostgresEncodable {
    public var postgresValue: PostgresValue { .int64(self) }
}

extension Bool: PostgresEncodable {
    public var postgresValue: PostgresValue { .bool(self) }
}

extension Double: PostgresEncodable {
    public var postgresValue: PostgresValue { .double(self) }
}

extension Date: PostgresEncodable {
    public var postgresValue: PostgresValue { .timestamptz(self) }
}

extension PostgresTimestamp: PostgresEncodable {
    public var postgresValue: PostgresValue { .timestamptz(self) }
}

extension UUID: PostgresEncodable {
    public var postgresValue: PostgresValue { .uuid(self) }
}

extension Data: PostgresEncodable {
    public var postgresValue: PostgresValue { .bytea(self) }
}

extension Array: PostgresEncodable where Element == UInt8 {
    public var postgresValue: PostgresValue { .bytea(self) }
}

extension Optional: PostgresEncodable where Wrapped: PostgresEncodable {
    public var postgresValue: PostgresValue {
        switch self {
        case .none: .null
        case .some(let wrapped): wrapped.postgresValue
        }
    }
}
