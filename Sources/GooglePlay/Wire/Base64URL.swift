import Foundation

/// Base64 in its URL-safe alphabet without padding (RFC 4648 §5), as JWTs and JWKs use it.
public enum Base64URL {
    /// Encodes bytes without padding.
    public static func encode(_ bytes: some DataProtocol) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// Decodes unpadded base64url text; `nil` for padding, characters outside the alphabet or a length no
    /// encoding has.
    public static func decode(_ text: Substring) -> Data? {
        guard text.utf8.count % 4 != 1 else { return nil }
        var standard = ""
        standard.reserveCapacity(text.utf8.count + 3)
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"):
                standard.unicodeScalars.append(Unicode.Scalar(byte))
            case UInt8(ascii: "-"): standard += "+"
            case UInt8(ascii: "_"): standard += "/"
            default: return nil
            }
        }
        while standard.utf8.count % 4 != 0 { standard += "=" }
        return Data(base64Encoded: standard)
    }

    /// Decodes unpadded base64url text.
    public static func decode(_ text: String) -> Data? { decode(Substring(text)) }
}
