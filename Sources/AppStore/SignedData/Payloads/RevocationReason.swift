// Typed views of the raw strings and numbers in Apple's transaction payloads. Payload structs store the
// raw value (so values Apple adds later survive a round trip) and expose these through computed properties.

/// Apple's `revocationReason` / legacy `cancellation_reason`.
public enum RevocationReason: Int, Hashable, Sendable, Codable, CaseIterable {
    case refundedForOtherReason = 0
    case refundedDueToIssue = 1
}
