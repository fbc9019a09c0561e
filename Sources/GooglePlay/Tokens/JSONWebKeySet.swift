import Foundation
import _CryptoExtras

/// A set of RSA public keys by key id, read from a JWKS document (`{"keys": [{"kty": "RSA", "kid", "n", "e"}]}`,
/// as Google serves at `https://www.googleapis.com/oauth2/v3/certs`), or written as one.
public struct JSONWebKeySet: Sendable {
    /// The largest document read.
    public static let maximumDocumentBytes = 64 * 1024
    /// The most keys read; Google publishes two or three at a time.
    public static let maximumKeys = 32

    /// The keys, by `kid`.
    public private(set) var keys: [String: _RSA.Signing.PublicKey]

    /// A set of the given keys.
    public init(keys: [String: _RSA.Signing.PublicKey]) { self.keys = keys }

    /// Reads a JWKS document. Keys of another `kty`, or whose `use` is not `sig` or `alg` not `RS256`, are
    /// skipped (they cannot verify an RS256 token); an RSA key without a `kid`, with a repeated `kid`, or with a
    /// modulus or exponent that is not base64url of a key of 2048 bits or more, makes the document invalid.
    public init(jsonData data: Data) throws(JSONWebKeySetError) {
        guard data.count <= Self.maximumDocumentBytes else { throw JSONWebKeySetError(.tooLarge) }
        let document: Document
        do {
            document = try JSONDecoder().decode(Document.self, from: data)
        } catch {
            throw JSONWebKeySetError(.malformed)
        }
        guard document.keys.count <= Self.maximumKeys else { throw JSONWebKeySetError(.tooLarge) }
        var keys: [String: _RSA.Signing.PublicKey] = [:]
        for entry in document.keys where entry.kty == "RSA" {
            if let use = entry.use, use != "sig" { continue }
            if let alg = entry.alg, alg != "RS256" { continue }
            guard let kid = entry.kid, WireText.isAcceptable(kid, maximumLength: 256) else {
                throw JSONWebKeySetError(.invalidKey)
            }
            guard keys[kid] == nil else { throw JSONWebKeySetError(.duplicateKeyID) }
            guard let n = entry.n.flatMap(Base64URL.decode), let e = entry.e.flatMap(Base64URL.decode),
                n.count <= 1024, e.count <= 16, let key = try? _RSA.Signing.PublicKey(n: n, e: e)
            else { throw JSONWebKeySetError(.invalidKey) }
            keys[kid] = key
        }
        self.keys = keys
    }

    /// The set as a JWKS document (keys sorted by `kid`, each `kty` RSA, `alg` RS256, `use` sig).
    public func jsonData() throws -> Data {
        var entries: [Entry] = []
        for (kid, key) in keys.sorted(by: { $0.key < $1.key }) {
            let primitives = try key.getKeyPrimitives()
            entries.append(
                Entry(
                    kty: "RSA", kid: kid, use: "sig", alg: "RS256", n: Base64URL.encode(primitives.modulus),
                    e: Base64URL.encode(primitives.publicExponent)))
        }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes, .prettyPrinted]
        return try encoder.encode(Document(keys: entries))
    }

    private struct Document: Codable {
        var keys: [Entry]
    }

    private struct Entry: Codable {
        var kty: String?
        var kid: String?
        var use: String?
        var alg: String?
        var n: String?
        var e: String?
    }
}

/// Why a JWKS document was not read.
public struct JSONWebKeySetError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The reason.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// Larger than `maximumDocumentBytes`, or more than `maximumKeys` keys.
        public static let tooLarge = Code("tooLarge")
        /// Not a JSON object with a `keys` array.
        public static let malformed = Code("malformed")
        /// An RSA key without a usable `kid`, modulus or exponent, or smaller than 2048 bits.
        public static let invalidKey = Code("invalidKey")
        /// Two keys share a `kid`.
        public static let duplicateKeyID = Code("duplicateKeyID")

        public var description: String { name }
    }

    public let code: Code
    public init(_ code: Code) { self.code = code }
    public var description: String { "JSONWebKeySetError(\(code))" }
}
