import Crypto  // swift-crypto (on Apple platforms, `import CryptoKit` offers the same API)
import Foundation

/// Whether `header` (the SubLedger-Signature value) signs the raw request `body` with one of `secrets`,
/// at a time within `tolerance` seconds of `now`.
func verifySubLedgerSignature(
    header: String, body: Data, secrets: [String], now: Date = Date(), tolerance: TimeInterval = 300
) -> Bool {
    var timestamp: String?
    var signatures: [String] = []
    for element in header.split(separator: ",") {
        let pair = element.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
        guard pair.count == 2 else { return false }
        if pair[0] == "t" { timestamp = String(pair[1]) }
        if pair[0] == "v1" { signatures.append(String(pair[1])) }
    }
    guard let timestamp, timestamp.utf8.count <= 10, timestamp.allSatisfy(\.isWholeNumber),
        let seconds = Double(timestamp), abs(now.timeIntervalSince1970 - seconds) <= tolerance
    else { return false }
    let signed = Data("\(timestamp).".utf8) + body
    for secret in secrets {
        let key = SymmetricKey(data: Data(secret.utf8))
        for signature in signatures where signature.utf8.count == 64 {
            let digits = Array(signature.utf8)
            let mac = stride(from: 0, to: 64, by: 2).compactMap {
                UInt8(String(decoding: digits[$0..<$0 + 2], as: UTF8.self), radix: 16)
            }
            if mac.count == 32, HMAC<SHA256>.isValidAuthenticationCode(mac, authenticating: signed, using: key) {
                return true
            }
        }
    }
    return false
}
