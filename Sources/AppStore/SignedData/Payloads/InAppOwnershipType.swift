// Typed views of the raw strings and numbers in Apple's transaction payloads. Payload structs store the
// raw value (so values Apple adds later survive a round trip) and expose these through computed properties.

/// Apple's `inAppOwnershipType` / `in_app_ownership_type`.
public enum InAppOwnershipType: String, Hashable, Sendable, Codable, CaseIterable {
    case familyShared = "FAMILY_SHARED"
    case purchased = "PURCHASED"
}
