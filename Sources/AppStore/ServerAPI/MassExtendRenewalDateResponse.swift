/// Apple's `MassExtendRenewalDateResponse`: the mass extension was accepted and will be processed later.
public struct MassExtendRenewalDateResponse: Codable, Hashable, Sendable {
    /// Apple's `requestIdentifier`, echoed.
    public var requestIdentifier: String?

    /// Creates an answer.
    public init(requestIdentifier: String?) {
        self.requestIdentifier = requestIdentifier
    }
}
