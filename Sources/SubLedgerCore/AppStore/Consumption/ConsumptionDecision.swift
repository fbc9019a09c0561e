/// What to do about one consumption request.
public enum ConsumptionDecision: Hashable, Sendable {
    /// Send this to Apple.
    case send(ConsumptionInformation)
    /// Record the request and send nothing.
    case skip(ConsumptionSkipReason)
}

/// Why a consumption request is answered with nothing.
public enum ConsumptionSkipReason: String, Hashable, Sendable, Codable {
    /// The catalog does not enable answering for the app (`skipped_disabled`).
    case disabled = "skipped_disabled"
    /// No consent in force for the account, or no account owns the purchase (`skipped_no_consent`).
    case noConsent = "skipped_no_consent"
}
