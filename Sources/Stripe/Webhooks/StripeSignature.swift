import Crypto
import Foundation
import SubLedgerCore

/// Stripe's webhook signature: the `Stripe-Signature` header, `t=<unix seconds>,v1=<hex>[,v1=<hex>…]`, where each
/// `v1` is HMAC-SHA256 of `"<t>.<body>"` under one of the endpoint's signing secrets (`whsec_…`). Stripe sends one
/// `v1` per live secret, so during a secret roll a request verifies under either the old or the new one; `v0` and
/// other schemes are ignored.
public struct StripeSignature: Sendable, Hashable {
    /// The signing time, in seconds since 1970.
    public var timestamp: Int64
    /// The `v1` signatures, 32 bytes each.
    public var signatures: [[UInt8]]

    /// Stripe's default tolerance: a signature older (or newer) than five minutes is refused as a replay.
    public static let defaultTolerance: Int64 = 300
    /// The longest header accepted, and the most `v1` entries read from it.
    public static let maximumHeaderLength = 4096
    public static let maximumSignatures = 8

    /// Parses a header; throws `StripeSignatureError` for one without a timestamp or a `v1` signature.
    public init(header: String) throws(StripeSignatureError) {
        guard (1...Self.maximumHeaderLength).contains(header.utf8.count) else { throw .malformedHeader }
        var timestamp: Int64?
        var signatures: [[UInt8]] = []
        for item in header.split(separator: ",", omittingEmptySubsequences: true) {
            let parts = item.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            guard parts.count == 2 else { continue }
            let key = parts[0].trimmingCharacters(in: .whitespaces)
            let value = parts[1].trimmingCharacters(in: .whitespaces)
            switch key {
            case "t":
                guard timestamp == nil, (1...12).contains(value.utf8.count), value.utf8.allSatisfy(Self.isDigit),
                    let seconds = Int64(value)
                else { throw .malformedHeader }
                timestamp = seconds
            case "v1":
                guard signatures.count < Self.maximumSignatures else { continue }
                guard let bytes = Self.hexBytes(value), bytes.count == 32 else { continue }
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

    /// Checks the header against `body` and the endpoint's live `secrets`: the signing time within `tolerance`
    /// seconds of `now`, and some `v1` equal (in constant time) to the HMAC of one secret.
    public static func verify(
        header: String?, body: Data, secrets: [String], now: Instant, tolerance: Int64 = defaultTolerance
    ) throws(StripeSignatureError) {
        guard let header else { throw .missingHeader }
        let signature = try StripeSignature(header: header)
        let nowSeconds = now.millisecondsSince1970 / 1000
        let age = nowSeconds.subtractingReportingOverflow(signature.timestamp)
        guard !age.overflow, age.partialValue.magnitude <= UInt64(max(0, tolerance)) else { throw .outsideTolerance }
        var signed = Data("\(signature.timestamp).".utf8)
        signed.append(body)
        for secret in secrets where !secret.isEmpty {
            let key = SymmetricKey(data: Data(secret.utf8))
            for candidate in signature.signatures
            where HMAC<SHA256>.isValidAuthenticationCode(candidate, authenticating: signed, using: key) {
                return
            }
        }
        throw .noMatchingSignature
    }

    /// The header Stripe would send for `body` signed at `timestamp` with `secrets` (one `v1` each).
    public static func header(body: Data, timestamp: Int64, secrets: [String]) -> String {
        var signed = Data("\(timestamp).".utf8)
        signed.append(body)
        let entries = secrets.map { secret in
            let code = HMAC<SHA256>.authenticationCode(for: signed, using: SymmetricKey(data: Data(secret.utf8)))
            return "v1=" + code.map { String(format: "%02x", $0) }.joined()
        }
        return (["t=\(timestamp)"] + entries).joined(separator: ",")
    }

    private static func isDigit(_ byte: UInt8) -> Bool { (0x30...0x39).contains(byte) }

    private static func hexBytes(_ text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        guard utf8.count.isMultiple(of: 2), utf8.count <= 128 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count / 2)
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
public enum StripeSignatureError: Error, Sendable, Hashable {
    /// No `Stripe-Signature` header.
    case missingHeader
    /// A header without a usable `t=`, or too long.
    case malformedHeader
    /// A header with no well-formed `v1` signature.
    case noSignature
    /// Signed too long ago or in the future (a replay, or a clock far off).
    case outsideTolerance
    /// No `v1` matches the body under any live secret.
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
