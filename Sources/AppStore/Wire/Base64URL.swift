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

    /// Decodes canonical unpadded base64url (RFC 7515 §2): only the 64 alphabet characters, no padding, no
    /// length of the form 4n+1, and zero unused bits in the last character, so that each byte string has
    /// exactly one accepted encoding. `nil` otherwise.
    public static func decodeCanonical(bytes text: some Collection<UInt8>) -> Data? {
        let count = text.count
        guard count % 4 != 1 else { return nil }
        var output = Data(count: count / 4 * 3 + max(0, count % 4 - 1))
        // The table is fetched once, not per byte: the lazy global's access check in the loop cost as much as
        // the decoding itself.
        let table = sextets
        let valid = table.withUnsafeBufferPointer { sextets in
            output.withUnsafeMutableBytes { (out: UnsafeMutableRawBufferPointer) -> Bool in
                var accumulator: UInt32 = 0
                var held = 0
                var written = 0
                for byte in text {
                    let value = sextets[Int(byte)]
                    guard value != 0xFF else { return false }
                    accumulator = accumulator << 6 | UInt32(value)
                    held += 1
                    if held == 4 {
                        out[written] = UInt8(truncatingIfNeeded: accumulator >> 16)
                        out[written + 1] = UInt8(truncatingIfNeeded: accumulator >> 8)
                        out[written + 2] = UInt8(truncatingIfNeeded: accumulator)
                        written += 3
                        accumulator = 0
                        held = 0
                    }
                }
                switch held {
                case 2:  // 12 bits: one byte and 4 unused bits
                    guard accumulator & 0x0F == 0 else { return false }
                    out[written] = UInt8(truncatingIfNeeded: accumulator >> 4)
                case 3:  // 18 bits: two bytes and 2 unused bits
                    guard accumulator & 0x03 == 0 else { return false }
                    out[written] = UInt8(truncatingIfNeeded: accumulator >> 10)
                    out[written + 1] = UInt8(truncatingIfNeeded: accumulator >> 2)
                default:
                    break
                }
                return true
            }
        }
        return valid ? output : nil
    }

    /// Each byte's value in the base64url alphabet, or 0xFF.
    private static let sextets: [UInt8] = {
        var table = [UInt8](repeating: 0xFF, count: 256)
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        for (value, character) in alphabet.enumerated() { table[Int(character)] = UInt8(value) }
        return table
    }()

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
