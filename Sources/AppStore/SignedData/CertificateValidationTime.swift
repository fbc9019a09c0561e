/// At which moment the certificates of a signed payload must have been valid.
public enum CertificateValidationTime: String, Hashable, Sendable, Codable {
    /// At the payload's `signedDate` (the current time when the payload has none): offline verification
    /// of stored or replayed data, matching what Apple's own libraries do without online checks.
    case signedDate
    /// At the current time from the verifier's clock.
    case now
}
