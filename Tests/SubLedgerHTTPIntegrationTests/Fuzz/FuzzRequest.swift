import Foundation

/// One request of a campaign: bytes for the wire, and what it is for the report.
struct FuzzRequest: Sendable {
    /// `POST /v1/receipts`, `GET /v1/accounts/{id}/entitlements`, …
    var route: String
    /// The input class it exercises (`account_id: NUL (\u0000)`).
    var inputClass: String
    var method: String
    /// The request target exactly as sent (path and query; may hold any byte).
    var target: [UInt8]
    var headers: [(name: String, value: String)] = []
    var body: [UInt8]? = nil
    /// Bytes sent as they are instead (framing cases).
    var raw: [UInt8]? = nil

    /// The request as HTTP/1.1 bytes, closing the connection after the answer.
    var wire: [UInt8] {
        if let raw { return raw }
        var head =
            Array("\(method) ".utf8) + target + Array(" HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n".utf8)
        for header in headers { head += Array("\(header.name): \(header.value)\r\n".utf8) }
        if let body { head += Array("Content-Length: \(body.count)\r\n".utf8) }
        head += Array("\r\n".utf8)
        return head + (body ?? [])
    }

    /// The request for a report: printable, with long runs cut.
    var excerpt: String {
        Self.printable(wire, limit: 600)
    }

    static func printable(_ bytes: [UInt8], limit: Int) -> String {
        var text = ""
        for byte in bytes.prefix(limit) {
            switch byte {
            case 0x0D: text += "\\r"
            case 0x0A: text += "\\n"
            case 0x20..<0x7F: text.unicodeScalars.append(UnicodeScalar(byte))
            default: text += String(format: "\\x%02X", byte)
            }
        }
        if bytes.count > limit { text += "… (\(bytes.count) bytes in all)" }
        return text
    }
}
