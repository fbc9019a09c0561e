/// Whether the Apple ID bought the product or receives it through Family Sharing.
public enum OwnershipType: String, Hashable, Sendable, Codable, CaseIterable {
    case purchased = "PURCHASED"
    case familyShared = "FAMILY_SHARED"
}
