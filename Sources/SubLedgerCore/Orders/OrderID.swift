/// The id of an order: a UUID the caller generated from a secure random source, stored lower-cased.
///
/// The core does not generate ids (that needs randomness); it only checks the format. The app passes the
/// order id to StoreKit as `appAccountToken`, which is how a transaction finds its order.
public struct OrderID: Hashable, Comparable, Sendable, Codable, CustomStringConvertible {
    /// The lower-cased UUID.
    public let rawValue: String

    /// Validates that `rawValue` is a UUID; accepts either case.
    public init(_ rawValue: String) throws(IdentifierError) {
        guard !rawValue.isEmpty else { throw IdentifierError(code: .empty, identifierKind: "order id") }
        guard UUIDFormat.isUUID(rawValue) else { throw IdentifierError(code: .notAUUID, identifierKind: "order id") }
        self.rawValue = rawValue.lowercased()
    }

    public init(from decoder: any Decoder) throws {
        try self.init(decoder.singleValueContainer().decode(String.self))
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(rawValue)
    }

    public static func < (lhs: OrderID, rhs: OrderID) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { rawValue }
}
