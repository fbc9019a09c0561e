import Foundation

/// The HTTP body of a V2 notification, `{"signedPayload":"..."}`, read without a JSON decoder when it has
/// exactly the form Apple sends.
public enum NotificationBodyV2 {
    /// The `signedPayload` of a body that is exactly one JSON object with the one member `signedPayload`,
    /// whose value is a string of printable ASCII without escapes (a compact JWS is base64url and dots),
    /// JSON whitespace allowed around the tokens. `nil` for any other body, which the caller then decodes
    /// as JSON: for a body of this form a JSON decoder reads the same string, so nothing is accepted here
    /// that the decoder would refuse or read differently. It saves a decoder's pass over 10–20 KB per
    /// notification.
    public static func plainSignedPayload(_ body: Data) -> String? {
        body.withUnsafeBytes { raw -> String? in
            let bytes = raw.bindMemory(to: UInt8.self)
            var index = 0
            func skipSpace() {
                while index < bytes.count {
                    switch bytes[index] {
                    case 0x20, 0x09, 0x0A, 0x0D: index += 1
                    default: return
                    }
                }
            }
            func expect(_ text: StaticString) -> Bool {
                let count = text.utf8CodeUnitCount
                guard index + count <= bytes.count else { return false }
                for offset in 0..<count where bytes[index + offset] != text.utf8Start[offset] { return false }
                index += count
                return true
            }
            skipSpace()
            guard expect("{") else { return nil }
            skipSpace()
            guard expect("\"signedPayload\"") else { return nil }
            skipSpace()
            guard expect(":") else { return nil }
            skipSpace()
            guard expect("\"") else { return nil }
            let start = index
            while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                // An escape, a control character or non-ASCII text: left to the JSON decoder.
                guard bytes[index] >= 0x20, bytes[index] < 0x7F, bytes[index] != UInt8(ascii: "\\") else { return nil }
                index += 1
            }
            let end = index
            guard expect("\"") else { return nil }
            skipSpace()
            guard expect("}") else { return nil }
            skipSpace()
            guard index == bytes.count else { return nil }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        }
    }
}
