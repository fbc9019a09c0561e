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

    /// The members a header is read from (their raw text is captured by `CompactJWS`'s scan).
    static let memberNames: Set<String> = ["alg", "x5c", "typ", "kid", "crit"]

    /// The header read from the raw text of its members, when each is in the plain form Apple writes: a
    /// string without escapes (but `\/`), `null`, or (`x5c`) an array of such strings. `nil` otherwise, and whenever
    /// `crit` is present, so that the JSON decoder reads it instead; for the plain form both read the same.
    /// The caller has checked that the header is one JSON object without repeated keys.
    init?(plainMembers members: [String: [UInt8]]) {
        guard members["crit"] == nil else { return nil }
        guard let algorithm = Self.plainMember(members["alg"]), let type = Self.plainMember(members["typ"]),
            let keyID = Self.plainMember(members["kid"]), let chain = Self.plainStrings(members["x5c"])
        else { return nil }
        self.init(algorithm: algorithm, certificateChain: chain, type: type, keyID: keyID)
    }

    /// `.some(nil)` for an absent or `null` member, `.some(value)` for a plain string, `nil` for anything else.
    private static func plainMember(_ text: [UInt8]?) -> String?? {
        guard let text, text != Array("null".utf8) else { return .some(nil) }
        return plainString(text[...]).map { .some($0) }
    }

    /// A quoted string whose only escape is `\/` (encoders that escape slashes write base64 so), or `nil`.
    private static func plainString(_ text: ArraySlice<UInt8>) -> String? {
        guard text.count >= 2, text.first == UInt8(ascii: "\""), text.last == UInt8(ascii: "\"") else { return nil }
        let inner = text.dropFirst().dropLast()
        // The scan that captured the text validated it as JSON and UTF-8, so an unescaped quote cannot be inside.
        guard inner.contains(UInt8(ascii: "\\")) else { return String(decoding: inner, as: UTF8.self) }
        var unescaped: [UInt8] = []
        unescaped.reserveCapacity(inner.count)
        var index = inner.startIndex
        while index < inner.endIndex {
            if inner[index] == UInt8(ascii: "\\") {
                guard index + 1 < inner.endIndex, inner[index + 1] == UInt8(ascii: "/") else { return nil }
                index += 1
            }
            unescaped.append(inner[index])
            index += 1
        }
        return String(decoding: unescaped, as: UTF8.self)
    }

    /// Like `plainMember`, for an array of plain strings.
    private static func plainStrings(_ text: [UInt8]?) -> [String]?? {
        guard let text, text != Array("null".utf8) else { return .some(nil) }
        guard text.first == UInt8(ascii: "["), text.last == UInt8(ascii: "]") else { return nil }
        var strings: [String] = []
        var index = text.startIndex + 1
        let end = text.endIndex - 1
        func skipSpace() {
            while index < end, text[index] == 0x20 || text[index] == 0x09 || text[index] == 0x0A || text[index] == 0x0D
            {
                index += 1
            }
        }
        skipSpace()
        while index < end {
            guard text[index] == UInt8(ascii: "\"") else { return nil }
            guard let close = text[(index + 1)..<end].firstIndex(of: UInt8(ascii: "\"")),
                let string = plainString(text[index...close])
            else { return nil }
            strings.append(string)
            index = close + 1
            skipSpace()
            if index < end {
                guard text[index] == UInt8(ascii: ",") else { return nil }
                index += 1
                skipSpace()
                guard index < end else { return nil }
            }
        }
        return .some(strings)
    }

    enum CodingKeys: String, CodingKey {
        case algorithm = "alg"
        case certificateChain = "x5c"
        case type = "typ"
        case keyID = "kid"
        case critical = "crit"
    }
}
