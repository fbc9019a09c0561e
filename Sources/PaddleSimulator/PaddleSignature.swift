import Crypto
import Foundation

/// Paddle's webhook signature: `Paddle-Signature: ts=<unix seconds>;h1=<hex HMAC-SHA256 of "<ts>:<raw body>">`,
/// keyed with the notification setting's `endpoint_secret_key` (the key's text as bytes).
public enum PaddleSignature {
    public static let headerName = "Paddle-Signature"

    /// The header's value for `body` sent at `timestamp`.
    public static func header(body: Data, secretKey: String, timestamp: Int64) -> String {
        "ts=\(timestamp);h1=\(h1(body: body, secretKey: secretKey, timestamp: timestamp))"
    }

    static func h1(body: Data, secretKey: String, timestamp: Int64) -> String {
        var signed = Data("\(timestamp):".utf8)
        signed.append(body)
        return HMAC<SHA256>.authenticationCode(for: signed, using: SymmetricKey(data: Data(secretKey.utf8)))
            .map { String(format: "%02x", $0) }.joined()
    }

    /// Whether `header` signs `body` with `secretKey`, as a receiver checks it: one `ts`, any `h1` matching, and
    /// `ts` within `tolerance` seconds of `now`.
    public static func verify(header: String, body: Data, secretKey: String, now: Int64, tolerance: Int64 = 5) -> Bool {
        var timestamp: Int64?
        var hashes: [String] = []
        for part in header.split(separator: ";") {
            let pair = part.split(separator: "=", maxSplits: 1).map(String.init)
            guard pair.count == 2 else { return false }
            switch pair[0] {
            case "ts": timestamp = Int64(pair[1])
            case "h1": hashes.append(pair[1])
            default: return false
            }
        }
        guard let timestamp, abs(now - timestamp) <= tolerance, !hashes.isEmpty else { return false }
        let expected = Array(h1(body: body, secretKey: secretKey, timestamp: timestamp).utf8)
        return hashes.contains { candidate in
            let bytes = Array(candidate.utf8)
            guard bytes.count == expected.count else { return false }
            return zip(bytes, expected).reduce(UInt8(0)) { $0 | ($1.0 ^ $1.1) } == 0
        }
    }
}
