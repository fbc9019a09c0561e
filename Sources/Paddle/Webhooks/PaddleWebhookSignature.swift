import Crypto
import Foundation
import SubLedgerCore

/// Paddle's webhook signature: the `Paddle-Signature` header, `ts=<unix seconds>;h1=<hex>[;h1=<hex>…]`, where each
/// `h1` is HMAC-SHA256 of `"<ts>:<raw body>"` keyed with a notification setting's endpoint secret key (its text as
/// bytes). While a secret key is rotated Paddle signs with each live one, so a request verifies under either; other
/// schemes are ignored.
///
/// Named apart from paddle-sim's `PaddleSignature`, the signing side, so a test can import both.
public struct PaddleWebhookSignature: Sendable, Hashable {
    /// The header's name.
    public static let headerName = "Paddle-Signature"

    /// The signing time, in seconds since 1970.
    public var timestamp: Int64
    /// The `h1` signatures, 32 bytes each.
    public var signatures: [[UInt8]]

    /// Paddle's SDKs' tolerance: a signature more than five seconds from the receiver's clock is refused as a replay.
    public static let defaultTolerance: Int64 = 5
    /// The longest header accepted, and the most `h1` entries read from it.
    public static let maximumHeaderLength = 4096
    public static let maximumSignatures = 8

    /// Parses a header; throws for one without a single well-formed `ts` or without a well-formed `h1`.
    public init(header: String) throws(PaddleSignatureError) {
        guard (1...Self.maximumHeaderLength).contains(header.utf8.count) else { throw .malformedHeader }
        var timestamp: Int64?
        var signatures: [[UInt8]] = []
        for item in header.split(separator: ";", omittingEmptySubsequences: true) {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2 else { throw .malformedHeader }
            let key = parts[0].trimmingCharacters(in: .whitespaces)
            let value = parts[1].trimmingCharacters(in: .whitespaces)
            switch key {
            case "ts":
                guard timestamp == nil, (1...12).contains(value.utf8.count),
                    value.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let seconds = Int64(value)
                else { throw .malformedHeader }
                timestamp = seconds
            case "h1":
                guard signatures.count < Self.maximumSignatures, let bytes = Self.hexBytes(value), bytes.count == 32
                else { continue }
                signatures.append(bytes)
            default:
                continue
            }
        }
        guard let timestamp else { throw .malformedHeader }
        guard !signatures.isEmpty else { throw .noSignature }
        self.timestamp = timestamp
        self.signatures = signatures
    }

    /// Checks the header against the raw `body` and the notification settings' live `secretKeys`: the signing time
    /// within `tolerance` seconds of `now` (the caller's clock, passed in), and some `h1` equal, in constant time, to
    /// the HMAC under one key.
    public static func verify(
        header: String?, body: Data, secretKeys: [String], now: Instant, tolerance: Int64 = defaultTolerance
    ) throws(PaddleSignatureError) {
        guard let header, !header.isEmpty else { throw .missingHeader }
        let signature = try PaddleWebhookSignature(header: header)
        let nowSeconds = now.millisecondsSince1970 / 1000
        let age = nowSeconds.subtractingReportingOverflow(signature.timestamp)
        guard !age.overflow, age.partialValue.magnitude <= UInt64(max(0, tolerance)) else { throw .outsideTolerance }
        let signed = signedPayload(body: body, timestamp: signature.timestamp)
        for secretKey in secretKeys where !secretKey.isEmpty {
            let key = SymmetricKey(data: Data(secretKey.utf8))
            // `isValidAuthenticationCode` compares in constant time.
            for candidate in signature.signatures
            where HMAC<SHA256>.isValidAuthenticationCode(candidate, authenticating: signed, using: key) {
                return
            }
        }
        throw .noMatchingSignature
    }

    /// The header Paddle would send for `body` signed at `timestamp` with each of `secretKeys` (one `h1` each).
    public static func header(body: Data, timestamp: Int64, secretKeys: [String]) -> String {
        let signed = signedPayload(body: body, timestamp: timestamp)
        let entries = secretKeys.map { secretKey in
            let code = HMAC<SHA256>.authenticationCode(for: signed, using: SymmetricKey(data: Data(secretKey.utf8)))
            return "h1=" + code.map { String(format: "%02x", $0) }.joined()
        }
        return (["ts=\(timestamp)"] + entries).joined(separator: ";")
    }

    private static func signedPayload(body: Data, timestamp: Int64) -> Data {
        var signed = Data("\(timestamp):".utf8)
        signed.append(body)
        return signed
    }

    private static func hexBytes(_ text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count == 64 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        var index = 0
        while index < utf8.count {
            guard let high = nibble(utf8[index]), let low = nibble(utf8[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    private static func nibble(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 0x30...0x39: byte - 0x30
        case 0x61...0x66: byte - 0x61 + 10
        case 0x41...0x46: byte - 0x41 + 10
        default: nil
        }
    }
}

/// Why a webhook's signature was refused.
public enum PaddleSignatureError: Error, Sendable, Hashable {
    /// No `Paddle-Signature` header, or an empty one.
    case missingHeader
    /// A header without exactly one usable `ts=`, with an entry that is not `key=value`, or too long.
    case malformedHeader
    /// A header with no well-formed `h1` signature.
    case noSignature
    /// Signed too long ago or in the future (a replay, or a clock far off).
    case outsideTolerance
    /// No `h1` matches the body under any live secret key.
    case noMatchingSignature

    /// A stable code for logs and error messages.
    public var code: String {
        switch self {
        case .missingHeader: "missing_header"
        case .malformedHeader: "malformed_header"
        case .noSignature: "no_signature"
        case .outsideTolerance: "outside_tolerance"
        case .noMatchingSignature: "no_matching_signature"
        }
    }
}
