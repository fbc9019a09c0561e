/// The protected header of an Apple JWS: `alg`, `x5c` (leaf, intermediate, root) and optional `typ`/`kid`/`crit`.
public struct JWSHeader: Codable, Hashable, Sendable {
    /// The signature algorithm; Apple uses `ES256` only.
    public var algorithm: String?
    /// The certificate chain as base64 (not base64url) DER, leaf first.
    public var certificateChain: [String]?
    /// The media type, `JWT` when present.
    public var type: String?
    /// The key id, used by tokens this module signs for the Server API.
    public var keyID: String?
    /// The extensions the signer marks as critical (RFC 7515 §4.1.11). SubLedger understands none, so a
    /// header that has `crit` at all is refused; Apple's headers never carry it.
    public var critical: [String]?

    /// Creates a header.
    public init(
        algorithm: String?, certificateChain: [String]?, type: String? = nil, keyID: String? = nil,
        critical: [String]? = nil
    ) {
        self.algorithm = algorithm
        self.certificateChain = certificateChain
        self.type = type
        self.keyID = keyID
        self.critical = critical
    }

    /// Decodes a header; a `crit` member that is present but `null` reads as an empty list, so that it is
    /// refused like any other `crit`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        algorithm = try container.decodeIfPresent(String.self, forKey: .algorithm)
        certificateChain = try container.decodeIfPresent([String].self, forKey: .certificateChain)
        type = try container.decodeIfPresent(String.self, forKey: .type)
        keyID = try container.decodeIfPresent(String.self, forKey: .keyID)
        critical =
            container.contains(.critical) ? try container.decodeIfPresent([String].self, forKey: .critical) ?? [] : nil
    }

    enum CodingKeys: String, CodingKey {
        case algorithm = "alg"
        case certificateChain = "x5c"
        case type = "typ"
        case keyID = "kid"
        case critical = "crit"
    }
}
