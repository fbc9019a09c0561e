import Foundation

/// JSON as bytes on the wire, able to say what a well-behaved encoder cannot: strings with invalid UTF-8,
/// raw control bytes, lone surrogates, duplicate keys, numbers beyond every integer type.
indirect enum FuzzJSON: Sendable {
    case null
    case bool(Bool)
    /// A number, written exactly as given (`9223372036854775808`, `1e400`, `-0.0`).
    case number(String)
    /// A string of raw bytes; `"`, `\` and control bytes are escaped, every other byte is written as is
    /// (so invalid UTF-8 reaches the server unchanged).
    case string([UInt8])
    case array([FuzzJSON])
    /// Members in order; keys may repeat.
    case object([(key: String, value: FuzzJSON)])
    /// Bytes written verbatim in place of a value (invalid JSON on purpose, or escapes such as `"\ud800"`).
    case verbatim([UInt8])

    static func text(_ value: String) -> FuzzJSON { .string(Array(value.utf8)) }
    static func int(_ value: Int64) -> FuzzJSON { .number(String(value)) }

    /// The encoded bytes.
    var bytes: [UInt8] {
        var output: [UInt8] = []
        write(to: &output)
        return output
    }

    var data: Data { Data(bytes) }

    func write(to output: inout [UInt8]) {
        switch self {
        case .null: output += Array("null".utf8)
        case .bool(let value): output += Array((value ? "true" : "false").utf8)
        case .number(let text): output += Array(text.utf8)
        case .string(let raw): Self.writeString(raw, to: &output)
        case .verbatim(let raw): output += raw
        case .array(let items):
            output.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                item.write(to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                Self.writeString(Array(member.key.utf8), to: &output)
                output.append(UInt8(ascii: ":"))
                member.value.write(to: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    private static func writeString(_ raw: [UInt8], to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        for byte in raw {
            switch byte {
            case UInt8(ascii: "\""): output += [UInt8(ascii: "\\"), UInt8(ascii: "\"")]
            case UInt8(ascii: "\\"): output += [UInt8(ascii: "\\"), UInt8(ascii: "\\")]
            case 0..<0x20: output += Array(String(format: "\\u%04x", byte).utf8)
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }

    /// Every member path to a leaf or container inside this value (object keys and array indexes).
    var paths: [[FuzzPathComponent]] {
        var result: [[FuzzPathComponent]] = []
        func visit(_ value: FuzzJSON, _ path: [FuzzPathComponent]) {
            switch value {
            case .object(let members):
                for (index, member) in members.enumerated() {
                    let next = path + [.member(index, member.key)]
                    result.append(next)
                    visit(member.value, next)
                }
            case .array(let items):
                for (index, item) in items.enumerated() {
                    let next = path + [.element(index)]
                    result.append(next)
                    visit(item, next)
                }
            default: break
            }
        }
        visit(self, [])
        return result
    }

    /// The value at `path`.
    func value(at path: ArraySlice<FuzzPathComponent>) -> FuzzJSON? {
        guard let first = path.first else { return self }
        switch (self, first) {
        case (.object(let members), .member(let index, _)) where index < members.count:
            return members[index].value.value(at: path.dropFirst())
        case (.array(let items), .element(let index)) where index < items.count:
            return items[index].value(at: path.dropFirst())
        default: return nil
        }
    }

    /// This value with the member at `path` replaced (`nil`: removed).
    func replacing(_ path: ArraySlice<FuzzPathComponent>, with replacement: FuzzJSON?) -> FuzzJSON {
        guard let first = path.first else { return replacement ?? .null }
        switch (self, first) {
        case (.object(var members), .member(let index, _)) where index < members.count:
            if path.count == 1, replacement == nil {
                members.remove(at: index)
            } else {
                members[index].value = members[index].value.replacing(path.dropFirst(), with: replacement)
            }
            return .object(members)
        case (.array(var items), .element(let index)) where index < items.count:
            if path.count == 1, replacement == nil {
                items.remove(at: index)
            } else {
                items[index] = items[index].replacing(path.dropFirst(), with: replacement)
            }
            return .array(items)
        default: return self
        }
    }

    /// The object with `key` added at the end (a duplicate when the key exists).
    func appending(_ key: String, _ value: FuzzJSON) -> FuzzJSON {
        guard case .object(let members) = self else { return self }
        return .object(members + [(key, value)])
    }

    var isContainer: Bool {
        switch self {
        case .object, .array: return true
        default: return false
        }
    }
}

/// One step of a path into a `FuzzJSON` value.
enum FuzzPathComponent: Sendable, Equatable {
    case member(Int, String)
    case element(Int)

    var name: String {
        switch self {
        case .member(_, let key): return key
        case .element: return "[]"
        }
    }
}

extension Array where Element == FuzzPathComponent {
    /// `unified_receipt.latest_receipt_info[].expires_date_ms`.
    var dotted: String {
        var text = ""
        for component in self {
            switch component {
            case .member(_, let key): text += text.isEmpty ? key : "." + key
            case .element: text += "[]"
            }
        }
        return text.isEmpty ? "(body)" : text
    }
}
