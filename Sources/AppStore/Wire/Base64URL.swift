import Foundation

/// Base64url (RFC 4648 §5) without padding, as JWS segments use it.
public enum Base64URL: Sendable {
    /// Decodes an unpadded (or padded) base64url string; `nil` for any character outside the alphabet.
    public static func decode(_ text: some StringProtocol) -> Data? {
        var base64 = String(text)
        base64 = base64.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        switch base64.utf8.count % 4 {
        case 0: break
        case 2: base64 += "=="
        case 3: base64 += "="
        default: return nil
        }
        return Data(base64Encoded: base64)
    }

    /// Encodes bytes as unpadded base64url.
    public static func encode(_ bytes: some DataProtocol) -> String {
        Data(bytes).base64EncodedString()
            .replacingOccurrences(of: "+", with: "-")
            .replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }
}
