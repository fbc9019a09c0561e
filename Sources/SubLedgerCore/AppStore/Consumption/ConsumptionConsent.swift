/// A customer's answer to "may we share your consumption data with Apple?", as the app server recorded it.
public struct ConsumptionConsent: Hashable, Sendable, Codable {
    /// `true` granted, `false` withdrawn.
    public var consented: Bool
    /// When the customer gave (or withdrew) it.
    public var at: Instant

    public init(consented: Bool, at: Instant) {
        self.consented = consented
        self.at = at
    }

    /// Whether consent is in force at `instant`: granted, and not given in the future.
    public func isGranted(at instant: Instant) -> Bool { consented && at <= instant }
}
