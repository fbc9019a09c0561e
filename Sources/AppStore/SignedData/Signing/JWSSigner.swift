import Crypto
import Foundation

/// Signs payloads as the App Store does: compact JWS, `alg` ES256, `x5c` leaf/intermediate/root.
///
/// Used by the App Store simulator and by tests; production code only verifies.
public struct JWSSigner: Sendable {
    /// The chain whose leaf key signs.
    public let chain: SigningChain

    /// Creates a signer for a chain.
    public init(chain: SigningChain) {
        self.chain = chain
    }

    /// A compact JWS of `payload` encoded as JSON.
    public func sign(_ payload: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return try sign(payloadBytes: try encoder.encode(payload))
    }

    /// A compact JWS of raw payload bytes (for tests that need exact or malformed payloads).
    public func sign(payloadBytes: Data, header: JWSHeader? = nil) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let effectiveHeader = try header ?? JWSHeader(algorithm: "ES256", certificateChain: chain.x5c(), type: "JWT")
        let headerSegment = Base64URL.encode(try encoder.encode(effectiveHeader))
        let payloadSegment = Base64URL.encode(payloadBytes)
        let signature = try chain.leafPrivateKey.signature(for: Data("\(headerSegment).\(payloadSegment)".utf8))
        return "\(headerSegment).\(payloadSegment).\(Base64URL.encode(signature.rawRepresentation))"
    }
}
