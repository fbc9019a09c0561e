import Crypto
import Foundation

/// How a webhook request proves it comes from SubLedger, and how a receiver checks it.
///
/// The header is `SubLedger-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>]`, where each `v1` is the
/// lowercase hex HMAC-SHA256 of the bytes `"<t>." + body`, keyed with the UTF-8 bytes of one of the
/// endpoint's secrets (the whole `whsec_...` string). During a rotation both the new and the previous
/// secret are valid, so the header carries one `v1` per secret. A receiver accepts the request when any
/// `v1` matches any secret it holds and `t` lies within the tolerance of its clock (five minutes by
/// default), which bounds how long a captured request can be replayed. docs/guides/webhooks.md has the rules
/// and verification snippets in several languages.
public enum WebhookSignature {
    public static let headerName = "SubLedger-Signature"
    /// The default replay tolerance, in seconds, either side of the receiver's clock.
    public static let defaultTolerance: Int64 = 300
    /// Headers longer than this are refused before parsing.
    static let maximumHeaderLength = 4096
    /// At most this many `v1` values are looked at.
    static let maximumSignatures = 8

    /// The lowercase hex HMAC-SHA256 of `"<timestamp>." + body` under `secret`.
    public static func signature(body: some Collection<UInt8>, timestamp: Int64, secret: String) -> String {
        hex(Array(mac(body: body, timestamp: timestamp, secret: secret)))
    }

    /// The header value for `body` sent at `timestamp`, signed with every secret in `secrets` (the
    /// current one first).
    public static func header(body: some Collection<UInt8>, timestamp: Int64, secrets: [String]) -> String {
        var value = "t=\(timestamp)"
        for secret in secrets {
            value += ",v1=" + signature(body: body, timestamp: timestamp, secret: secret)
        }
        return value
    }

    /// Checks a received header against the receiver's secrets and clock; returns the signed timestamp.
    ///
    /// Comparison is constant-time per signature. Unknown schemes (`v0=`, future `v2=`) are ignored.
    @discardableResult
    public static func verify(
        header: String,
        body: some Collection<UInt8>,
        secrets: [String],
        now: Int64,
        tolerance: Int64 = defaultTolerance
    ) throws(WebhookSignatureError) -> Int64 {
        let parsed = try parse(header)
        guard tolerance >= 0, now >= -maximumTimestamp, now <= maximumTimestamp else {
            throw WebhookSignatureError(.timestampOutOfTolerance, "the receiver's clock or tolerance is out of range")
        }
        // Both sides are bounded by `maximumTimestamp`, so the difference cannot overflow.
        let skew = now - parsed.timestamp
        guard skew <= tolerance, -skew <= tolerance else {
            throw WebhookSignatureError(
                .timestampOutOfTolerance,
                "the signature's timestamp \(parsed.timestamp) is \(skew) s away from now, more than the tolerance of \(tolerance) s"
            )
        }
        for secret in secrets {
            let key = SymmetricKey(data: Array(secret.utf8))
            let message = signedBytes(body: body, timestamp: parsed.timestamp)
            for candidate in parsed.signatures
            where HMAC<SHA256>.isValidAuthenticationCode(candidate, authenticating: message, using: key) {
                return parsed.timestamp
            }
        }
        throw WebhookSignatureError(.noMatchingSignature, "no v1 signature matches the body with any of the secrets")
    }

    /// A new endpoint secret: `whsec_` and 32 random bytes, base64url without padding.
    public static func generateSecret() -> String {
        var generator = SystemRandomNumberGenerator()
        let bytes = (0..<32).map { _ in UInt8.random(in: .min ... .max, using: &generator) }
        let encoded = Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
        return "whsec_" + encoded
    }

    // MARK: - Internals

    /// Timestamps are unix seconds of at most ten digits (until the year 2286).
    static let maximumTimestamp: Int64 = 9_999_999_999

    struct Parsed: Equatable {
        var timestamp: Int64
        var signatures: [[UInt8]]
    }

    static func parse(_ header: String) throws(WebhookSignatureError) -> Parsed {
        guard header.utf8.count <= maximumHeaderLength else {
            throw WebhookSignatureError(
                .malformedHeader, "the signature header is longer than \(maximumHeaderLength) bytes")
        }
        var timestamp: Int64?
        var signatures: [[UInt8]] = []
        for element in header.split(separator: ",", omittingEmptySubsequences: false) {
            let part = element.trimmingCharacters(in: .whitespaces)
            guard let equals = part.firstIndex(of: "=") else {
                throw WebhookSignatureError(.malformedHeader, "the signature header has an element without '='")
            }
            let name = part[..<equals]
            let value = part[part.index(after: equals)...]
            switch name {
            case "t":
                guard timestamp == nil else {
                    throw WebhookSignatureError(.malformedHeader, "the signature header has more than one timestamp")
                }
                guard (1...10).contains(value.utf8.count), value.utf8.allSatisfy({ (0x30...0x39).contains($0) }),
                    let seconds = Int64(value)
                else {
                    throw WebhookSignatureError(.malformedHeader, "the signature header's t is not unix seconds")
                }
                timestamp = seconds
            case "v1":
                guard let bytes = bytes(fromHex: value), bytes.count == SHA256.byteCount else {
                    throw WebhookSignatureError(.malformedHeader, "a v1 signature is not 64 hex digits")
                }
                if signatures.count < maximumSignatures { signatures.append(bytes) }
            default:
                continue
            }
        }
        guard let timestamp else {
            throw WebhookSignatureError(.malformedHeader, "the signature header has no timestamp (t=)")
        }
        guard !signatures.isEmpty else {
            throw WebhookSignatureError(.malformedHeader, "the signature header has no v1 signature")
        }
        return Parsed(timestamp: timestamp, signatures: signatures)
    }

    static func signedBytes(body: some Collection<UInt8>, timestamp: Int64) -> [UInt8] {
        var message = Array("\(timestamp).".utf8)
        message.append(contentsOf: body)
        return message
    }

    static func mac(body: some Collection<UInt8>, timestamp: Int64, secret: String) -> HashedAuthenticationCode<SHA256>
    {
        HMAC<SHA256>.authenticationCode(
            for: signedBytes(body: body, timestamp: timestamp),
            using: SymmetricKey(data: Array(secret.utf8))
        )
    }

    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    static func bytes(fromHex text: Substring) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count.isMultiple(of: 2) else { return nil }
        var out: [UInt8] = []
        out.reserveCapacity(utf8.count / 2)
        var index = 0
        while index < utf8.count {
            guard let high = nibble(utf8[index]), let low = nibble(utf8[index + 1]) else { return nil }
            out.append(high << 4 | low)
            index += 2
        }
        return out
    }

    private static func nibble(_ digit: UInt8) -> UInt8? {
        switch digit {
        case 0x30...0x39: digit - 0x30
        case 0x61...0x66: digit - 0x61 + 10
        case 0x41...0x46: digit - 0x41 + 10
        default: nil
        }
    }
}
