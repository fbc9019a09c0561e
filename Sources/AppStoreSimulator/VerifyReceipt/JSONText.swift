import SubLedgerCore

/// Minimal JSON text building for answers whose exact shape and speed matter (verifyReceipt, V1 bodies).
enum JSONText {
    /// `"text"` with JSON escaping, as `JSONWriter` escapes strings.
    static func quoted(_ text: String) -> String {
        var writer = JSONWriter(capacity: text.utf8.count + 2)
        writer.string(text)
        return writer.text
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
