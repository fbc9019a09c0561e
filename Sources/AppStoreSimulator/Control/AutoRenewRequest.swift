/// Turn auto-renew on or off.
public struct AutoRenewRequest: Sendable, Codable, Hashable {
    /// The new auto-renew status.
    public var enabled: Bool

    /// Creates a request.
    public init(enabled: Bool) { self.enabled = enabled }
}
