// Typed views of the raw strings and numbers in Apple's transaction payloads. Payload structs store the
// raw value (so values Apple adds later survive a round trip) and expose these through computed properties.

/// Apple's `revocationType`.
public enum RevocationType: String, Hashable, Sendable, Codable, CaseIterable {
    case refundFull = "REFUND_FULL"
    case refundProrated = "REFUND_PRORATED"
    case familyRevoke = "FAMILY_REVOKE"
}
