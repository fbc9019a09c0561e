import Foundation

/// Base64url (RFC 4648 §5) without padding, as JWS segments use it.
///
/// The alphabet is translated byte by byte: Foundation's string replacement on the 10–20 KB segments of
/// Apple's JWS was half the service's CPU time per notification in `scripts/bench`.
public enum Base64URL: Sendable {
    /// Decodes an unpadded (or padded) base64url string; `nil` for any character outside the alphabet.
    public static func decode(_ text: some StringProtocol) -> Data? {
        decode(bytes: text.utf8)
    }

    /// Decodes unpadded (or padded) base64url given as its ASCII bytes; `nil` for any byte outside the alphabet.
    public static func decode(bytes text: some Collection<UInt8>) -> Data? {
        var bytes = [UInt8]()
        bytes.reserveCapacity(text.count + 2)
        for byte in text {
            switch byte {
            case UInt8(ascii: "-"): bytes.append(UInt8(ascii: "+"))
            case UInt8(ascii: "_"): bytes.append(UInt8(ascii: "/"))
            default: bytes.append(byte)
            }
        }
        switch bytes.count % 4 {
        case 0: break
        case 2: bytes.append(contentsOf: [UInt8(ascii: "="), UInt8(ascii: "=")])
        case 3: bytes.append(UInt8(ascii: "="))
        default: return nil
        }
        return Data(base64Encoded: Data(bytes))
    }

    /// Encodes bytes as unpadded base64url.
    public static func encode(_ bytes: some DataProtocol) -> String {
        String(decoding: encodedBytes(bytes), as: UTF8.self)
    }

    /// Encodes bytes as unpadded base64url, returned as ASCII bytes.
    public static func encodedBytes(_ bytes: some DataProtocol) -> [UInt8] {
        var encoded = [UInt8]()
        let base64 = Data(bytes).base64EncodedData()
        encoded.reserveCapacity(base64.count)
        for byte in base64 {
            switch byte {
            case UInt8(ascii: "+"): encoded.append(UInt8(ascii: "-"))
            case UInt8(ascii: "/"): encoded.append(UInt8(ascii: "_"))
            case UInt8(ascii: "="): continue
            default: encoded.append(byte)
            }
        }
        return encoded
    }
}
