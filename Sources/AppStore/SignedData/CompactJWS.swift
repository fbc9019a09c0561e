import Foundation

/// A JWS in compact serialization split into its parts, before any verification.
public struct CompactJWS: Sendable {
    /// The largest token accepted; Apple's are a few kilobytes, so this bounds work on hostile input.
    public static let maximumLength = 256 * 1024

    /// The decoded protected header.
    public var header: JWSHeader
    /// The decoded payload bytes (JSON for every Apple JWS).
    public var payload: Data
    /// The decoded signature bytes.
    public var signature: Data
    /// `base64url(header) "." base64url(payload)`, the bytes the signature covers.
    public var signingInput: Data

    /// Splits and decodes a compact JWS; exactly three non-empty base64url segments are required.
    public init(_ token: String) throws(JWSVerificationError) {
        let trimmed = token.trimmingCharacters(in: .whitespacesAndNewlines)
        guard trimmed.utf8.count <= Self.maximumLength else {
            throw JWSVerificationError(.malformedJWS, detail: "token longer than \(Self.maximumLength) bytes")
        }
        let segments = trimmed.split(separator: ".", omittingEmptySubsequences: false)
        guard segments.count == 3, segments.allSatisfy({ !$0.isEmpty }) else {
            throw JWSVerificationError(.malformedJWS, detail: "expected three segments, found \(segments.count)")
        }
        guard let headerBytes = Base64URL.decode(segments[0]),
            let payload = Base64URL.decode(segments[1]),
            let signature = Base64URL.decode(segments[2])
        else {
            throw JWSVerificationError(.malformedJWS, detail: "a segment is not base64url")
        }
        // Re-encoding must give back the exact segment: this rejects non-canonical encodings (stray
        // trailing bits), so one token has exactly one byte representation.
        guard Base64URL.encode(headerBytes) == segments[0], Base64URL.encode(payload) == segments[1],
            Base64URL.encode(signature) == segments[2]
        else {
            throw JWSVerificationError(.malformedJWS, detail: "a segment is not canonical base64url")
        }
        let header: JWSHeader
        do {
            header = try JSONDecoder().decode(JWSHeader.self, from: headerBytes)
        } catch {
            throw JWSVerificationError(.malformedJWS, detail: "header is not a JSON object")
        }
        self.header = header
        self.payload = payload
        self.signature = signature
        self.signingInput = Data("\(segments[0]).\(segments[1])".utf8)
    }
}
