import Foundation

/// A JWS in compact serialization split into its parts, before any verification.
///
/// Parsing works on the token's UTF-8 bytes: Apple's notifications are 10–20 KB, and splitting them as
/// `Character`s (grapheme breaking) was a third of the service's CPU time per notification in `scripts/bench`.
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
    /// Where the payload's members lie (two levels deep), found by the same pass that checks the payload for
    /// repeated keys, so the payload is parsed only once: the signing date is read from them before
    /// verification (see `PayloadSigningDate`), and a notification's payloads after it
    /// (`PlainReadablePayload`). `nil` when the payload is not a JSON object.
    let payloadMembers: CapturedJSONObject?

    /// Splits and decodes a compact JWS; exactly three non-empty base64url segments are required, and header
    /// and payload must be JSON in which no object repeats a key. Surrounding ASCII whitespace is ignored.
    public init(_ token: String) throws(JWSVerificationError) {
        var token = token
        let parts = try token.withUTF8 { buffer in Self.split(buffer) }.get()
        self.header = parts.header
        self.payload = parts.payload
        self.signature = parts.signature
        self.signingInput = parts.signingInput
        self.payloadMembers = parts.payloadMembers
    }

    private struct Parts {
        var header: JWSHeader
        var payload: Data
        var signature: Data
        var signingInput: Data
        var payloadMembers: CapturedJSONObject?
    }

    private static func split(_ buffer: UnsafeBufferPointer<UInt8>) -> Result<Parts, JWSVerificationError> {
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
        var start = buffer.startIndex
        var end = buffer.endIndex
        while start < end, isSpace(buffer[start]) { start += 1 }
        while end > start, isSpace(buffer[end - 1]) { end -= 1 }
        guard end - start <= maximumLength else {
            return .failure(JWSVerificationError(.malformedJWS, detail: "token longer than \(maximumLength) bytes"))
        }
        let bytes = UnsafeBufferPointer(rebasing: buffer[start..<end])
        var dots: [Int] = []
        for index in bytes.indices where bytes[index] == UInt8(ascii: ".") {
            dots.append(index)
            if dots.count > 2 { break }
        }
        guard dots.count == 2 else {
            let count = dots.count + 1
            return .failure(
                JWSVerificationError(
                    .malformedJWS, detail: "expected three segments, found \(count > 3 ? "more" : String(count))"))
        }
        let segments = [
            bytes[bytes.startIndex..<dots[0]], bytes[(dots[0] + 1)..<dots[1]], bytes[(dots[1] + 1)..<bytes.endIndex],
        ]
        guard segments.allSatisfy({ !$0.isEmpty }) else {
            return .failure(JWSVerificationError(.malformedJWS, detail: "a segment is empty"))
        }
        var decoded: [Data] = []
        for segment in segments {
            // Only canonical encodings (no padding, no stray trailing bits) are accepted, so one token has
            // exactly one byte representation.
            guard let data = Base64URL.decodeCanonical(bytes: segment) else {
                return .failure(JWSVerificationError(.malformedJWS, detail: "a segment is not canonical base64url"))
            }
            decoded.append(data)
        }
        // A repeated key could be read differently by another JSON parser (Apple's library among them), so
        // neither the header nor the payload may have one; see `UniqueKeyJSON`.
        let headerMembers: [String: [UInt8]]
        switch UniqueKeyJSON.check(decoded[0], capturing: JWSHeader.memberNames) {
        case .success(let members): headerMembers = members
        case .failure(.duplicateKey):
            return .failure(JWSVerificationError(.malformedJWS, detail: "header repeats a key"))
        case .failure(.malformed):
            return .failure(JWSVerificationError(.malformedJWS, detail: "header is not JSON"))
        }
        let payloadMembers: CapturedJSONObject?
        switch UniqueKeyJSON.members(of: decoded[1]) {
        case .success(let members): payloadMembers = members
        case .failure(.duplicateKey):
            return .failure(JWSVerificationError(.malformedPayload, detail: "payload repeats a key"))
        case .failure(.malformed):
            return .failure(JWSVerificationError(.malformedPayload, detail: "payload is not JSON"))
        }
        let header: JWSHeader
        if decoded[0].first(where: { !isSpace($0) }) == UInt8(ascii: "{"),
            let plain = JWSHeader(plainMembers: headerMembers)
        {
            // Apple's headers are plain; read so, the three of a notification cost no JSON decoder each.
            header = plain
        } else {
            do {
                header = try JSONDecoder().decode(JWSHeader.self, from: decoded[0])
            } catch {
                return .failure(JWSVerificationError(.malformedJWS, detail: "header is not a JSON object"))
            }
        }
        return .success(
            Parts(
                header: header,
                payload: decoded[1],
                signature: decoded[2],
                signingInput: Data(bytes[bytes.startIndex..<dots[1]]),
                payloadMembers: payloadMembers
            )
        )
    }
}
