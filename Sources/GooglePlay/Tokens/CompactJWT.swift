import Foundation

/// A JWT in compact serialization, split and decoded but not yet verified.
public struct CompactJWT: Sendable {
    /// The longest token read; Google's ID tokens are about a kilobyte.
    public static let maximumLength = 16 * 1024

    /// The protected header.
    public var header: Header
    /// The payload's JSON bytes.
    public var payload: Data
    /// The signature bytes.
    public var signature: Data
    /// `header "." payload` as sent: what the signature covers.
    public var signingInput: Data

    /// The members of the header SubLedger reads.
    public struct Header: Codable, Hashable, Sendable {
        public var alg: String
        public var kid: String?
        public var typ: String?
        /// Critical extensions (RFC 7515 §4.1.11): none is understood, so a token listing any is refused.
        public var crit: [String]?

        public init(alg: String, kid: String?, typ: String? = "JWT", crit: [String]? = nil) {
            self.alg = alg
            self.kid = kid
            self.typ = typ
            self.crit = crit
        }
    }

    /// Splits and decodes `token`: exactly three non-empty base64url segments, a JSON header with `alg`, a
    /// payload that is UTF-8 JSON without NUL.
    public init(_ token: String) throws(JWTVerificationError) {
        guard !token.isEmpty else { throw JWTVerificationError(.missingToken) }
        guard token.utf8.count <= Self.maximumLength else {
            throw JWTVerificationError(.malformedToken, detail: "longer than \(Self.maximumLength) bytes")
        }
        let parts = token.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty }) else {
            throw JWTVerificationError(.malformedToken, detail: "not three segments")
        }
        guard let headerBytes = Base64URL.decode(parts[0]), let payload = Base64URL.decode(parts[1]),
            let signature = Base64URL.decode(parts[2])
        else { throw JWTVerificationError(.malformedToken, detail: "a segment is not base64url") }
        for bytes in [headerBytes, payload] {
            guard !bytes.contains(0), String(validating: bytes, as: UTF8.self) != nil else {
                throw JWTVerificationError(.malformedToken, detail: "not UTF-8 text")
            }
        }
        do {
            header = try JSONDecoder().decode(Header.self, from: headerBytes)
        } catch {
            throw JWTVerificationError(.malformedToken, detail: "header is not a JSON object with alg")
        }
        guard header.crit == nil else {
            throw JWTVerificationError(.malformedToken, detail: "header lists critical extensions")
        }
        self.payload = payload
        self.signature = signature
        self.signingInput = Data(parts[0].utf8) + Data([UInt8(ascii: ".")]) + Data(parts[1].utf8)
    }

    /// The token of an `Authorization` header value `Bearer <token>` (the scheme in any case).
    public static func bearerToken(fromAuthorization value: String?) throws(JWTVerificationError) -> String {
        guard let value, value.utf8.count <= maximumLength + 16 else { throw JWTVerificationError(.missingToken) }
        let parts = value.split(separator: " ", maxSplits: 1)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { throw JWTVerificationError(.missingToken) }
        let token = parts[1].trimmingCharacters(in: .whitespaces)
        guard !token.isEmpty else { throw JWTVerificationError(.missingToken) }
        return token
    }
}

/// A numeric date claim (`exp`, `iat`, `nbf`): seconds since 1970, an integer or a fraction.
struct NumericDate: Decodable, Hashable, Sendable {
    var seconds: Int64

    init(seconds: Int64) { self.seconds = seconds }

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let whole = try? container.decode(Int64.self) {
            seconds = whole
            return
        }
        let value = try container.decode(Double.self)
        // Beyond ±2^53 a double is no longer a whole second; such a date is not one anybody sends.
        guard value.isFinite, abs(value) < 9_007_199_254_740_992 else {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: "not a numeric date")
        }
        seconds = Int64(value.rounded(.down))
    }
}

/// `aud`: one string or an array of strings.
struct AudienceClaim: Decodable, Hashable, Sendable {
    var values: [String]

    init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        if let one = try? container.decode(String.self) {
            values = [one]
        } else {
            values = try container.decode([String].self)
        }
    }
}
