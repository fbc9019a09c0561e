/// What `ArtifactInspector` found: the kind, whether it verified, the exact typed reason, and the fields.
public struct InspectionReport: Encodable, Sendable {
    /// The detected kind.
    public var kind: ArtifactKind
    /// True only when every applicable check passed.
    public var verified: Bool
    /// The typed reason verification failed, as `<ErrorType>.<code>`, e.g. `JWSVerificationError.invalidSignature`.
    public var reason: String?
    /// The checks that ran and passed or failed, in order (`structure`, `chain`, `signature`, `appIdentity`, ...).
    public var checks: [String]
    /// The decoded payload, as Apple's field names; present even when verification failed, when decodable.
    public var fields: (any Encodable & Sendable)?
    /// The payload mapped to the core (`Transaction`, `RenewalInfo`, `ServerNotification`), when verified.
    public var core: (any Encodable & Sendable)?

    /// Creates a report.
    public init(
        kind: ArtifactKind,
        verified: Bool,
        reason: String? = nil,
        checks: [String] = [],
        fields: (any Encodable & Sendable)? = nil,
        core: (any Encodable & Sendable)? = nil
    ) {
        self.kind = kind
        self.verified = verified
        self.reason = reason
        self.checks = checks
        self.fields = fields
        self.core = core
    }

    enum CodingKeys: String, CodingKey {
        case kind, verified, reason, checks, fields, core
    }

    /// Encodes every member; absent optional members are omitted.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(kind, forKey: .kind)
        try container.encode(verified, forKey: .verified)
        try container.encodeIfPresent(reason, forKey: .reason)
        try container.encode(checks, forKey: .checks)
        if let fields { try fields.encode(to: container.superEncoder(forKey: .fields)) }
        if let core { try core.encode(to: container.superEncoder(forKey: .core)) }
    }
}
