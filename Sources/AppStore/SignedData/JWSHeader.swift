/// The protected header of an Apple JWS: `alg`, `x5c` (leaf, intermediate, root) and optional `typ`/`kid`.
public struct JWSHeader: Codable, Hashable, Sendable {
    /// The signature algorithm; Apple uses `ES256` only.
    public var algorithm: String?
    /// The certificate chain as base64 (not base64url) DER, leaf first.
    public var certificateChain: [String]?
    /// The media type, `JWT` when present.
    public var type: String?
    /// The key id, used by tokens this module signs for the Server API.
    public var keyID: String?

    /// Creates a header.
    public init(algorithm: String?, certificateChain: [String]?, type: String? = nil, keyID: String? = nil) {
        self.algorithm = algorithm
        self.certificateChain = certificateChain
        self.type = type
        self.keyID = keyID
    }

    enum CodingKeys: String, CodingKey {
        case algorithm = "alg"
        case certificateChain = "x5c"
        case type = "typ"
        case keyID = "kid"
    }
}
