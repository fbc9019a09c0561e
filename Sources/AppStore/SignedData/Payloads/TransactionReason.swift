// Typed views of the raw strings and numbers in Apple's transaction payloads. Payload structs store the
// raw value (so values Apple adds later survive a round trip) and expose these through computed properties.

/// Apple's `transactionReason`: a purchase the customer started, or a subscription renewal.
public enum TransactionReason: String, Hashable, Sendable, Codable, CaseIterable {
    case purchase = "PURCHASE"
    case renewal = "RENEWAL"
}
