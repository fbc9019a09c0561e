import Foundation

/// One query parameter or COPY field: NULL, text with a declared type, or raw binary (bytea).
///
/// Its `description` names only the type and size, never the content, so a value that reaches a log
/// line by accident leaks nothing.
public struct PostgresValue: Sendable, Hashable, CustomStringConvertible {
    enum Storage: Sendable, Hashable {
        case null
        case text(String)
        case binary([UInt8])
    }

    let storage: Storage
    /// The type sent with the parameter; `.unspecified` lets the server infer it.
    public let dataType: PostgresDataType

    init(storage: Storage, dataType: PostgresDataType) {
        self.storage = storage
        self.dataType = dataType
    }

    /// A value in PostgreSQL's text input syntax for `dataType` (e.g. `.numeric` with `"12.50"`).
    public init(text: String, as dataType: PostgresDataType) {
        self.init(storage: .text(text), dataType: dataType)
    }

    /// Whether this is SQL NULL.
    public var isNull: Bool {
        if case .null = storage { return true }
        return false
    }

    public var description: String {
        switch storage {
        case .null: "PostgresValue(NULL)"
        case .text(let text): "PostgresValue(\(dataType), \(text.utf8.count) bytes)"
        case .binary(let bytes): "PostgresValue(\(dataType), \(bytes.count) bytes binary)"
        }
    }

    /// The value in COPY text format before escaping, or nil for NULL.
    var copyText: String? {
        switch storage {
        case .null: nil
        case .text(let text): text
        case .binary(let bytes): "\\x" + Hex.encode(bytes)
        }
    }
}

/// Lowercase hexadecimal encoding and decoding of bytes.
enum Hex {
    private static let digits: [UInt8] = Array("0123456789abcdef".utf8)

    static func encode(_ bytes: some Collection<UInt8>) -> String {
        var output = [UInt8]()
        output.reserveCapacity(bytes.count * 2)
        for byte in bytes {
            output.append(digits[Int(byte >> 4)])
            output.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: output, as: UTF8.self)
    }

    static func value(of digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): digit - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
