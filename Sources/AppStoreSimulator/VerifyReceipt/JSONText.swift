/// Minimal JSON text building for answers whose exact shape and speed matter (verifyReceipt, V1 bodies).
enum JSONText {
    /// `"text"` with JSON escaping.
    static func quoted(_ text: String) -> String {
        var out = "\""
        out.reserveCapacity(text.utf8.count + 2)
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": out += "\\\""
            case "\\": out += "\\\\"
            case "\n": out += "\\n"
            case "\r": out += "\\r"
            case "\t": out += "\\t"
            case let c where c.value < 0x20:
                out +=
                    "\\u" + String(repeating: "0", count: 4 - String(c.value, radix: 16).count)
                    + String(c.value, radix: 16)
            default: out.unicodeScalars.append(scalar)
            }
        }
        return out + "\""
    }

    /// Appends `"name":"value"` (with a leading comma unless first).
    static func field(_ out: inout String, _ name: String, _ value: String, first: Bool = false) {
        if !first { out += "," }
        out += "\"" + name + "\":" + quoted(value)
    }

    /// Appends `"name":raw` where `raw` is already JSON.
    static func rawField(_ out: inout String, _ name: String, _ raw: String, first: Bool = false) {
        if !first { out += "," }
        out += "\"" + name + "\":" + raw
    }
}
