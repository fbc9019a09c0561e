/// A string enumeration of Google's wire format that keeps values it does not know.
///
/// Google adds values to its enumerations over time (a new `SUBSCRIPTION_STATE_*`, a new consumption state):
/// decoding one must not fail, and re-encoding must write it back unchanged. Conforming types are structs with
/// a `rawValue` and static members for the values known today.
public protocol GoogleEnumeration: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible
where RawValue == String {
    init(rawValue: String)
}

extension GoogleEnumeration {
    public init(from decoder: any Decoder) throws {
        self.init(rawValue: try decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public var description: String { rawValue }
}
