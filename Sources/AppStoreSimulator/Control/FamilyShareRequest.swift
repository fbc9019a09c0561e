/// Share a purchase with a family member.
public struct FamilyShareRequest: Sendable, Codable, Hashable {
    /// The family member's Apple ID.
    public var appleID: String

    /// Creates a request.
    public init(appleID: String) { self.appleID = appleID }
}
