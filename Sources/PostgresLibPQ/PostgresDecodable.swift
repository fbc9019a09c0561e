import Foundation

/// A Swift type that can be decoded from a result column (text format); NULL throws unless Optional.
public protocol PostgresDecodable {
    /// Decodes a cell; throw `cell.decodingError(_:)` for values or types this type cannot hold.
    static func decode(from cell: PostgresCell) throws -> Self
}

extension Optional: PostgresDecodable where Wrapped: PostgresDecodable {
    public static func decode(from cell: PostgresCell) throws -> Wrapped? {
        cell.bytes == nil ? nil : try Wrapped.decode(from: cell)
    }
}

extension String: PostgresDecodable {
    /// Any column decodes as its PostgreSQL text representation.
    public static func decode(from cell: PostgresCell) throws -> String {
        String(decoding: try cell.requireBytes(decoding: String.self), as: UTF8.self)
    }
}

extension PostgresCell {
    func decodeInteger<T: FixedWidthInteger>(_ type: T.Type) throws -> T {
        let bytes = try requireBytes(decoding: T.self)
        try requireType(.int2, .int4, .int8, .oid, decoding: T.self)
        guard let value = T(String(decoding: bytes, as: UTF8.self)) else {
            throw decodingError("value does not fit in \(T.self)")
        }
        return value
    }
}

extension Int: PostgresDecodable {
    public static func decode(from cell: PostgresCell) throws -> Int { try cell.decodeInteger(Int.self) }
}

extension Int16: PostgresDecodable {
    public static func decode(from cell: PostgresCell) throws -> Int16 { try cell.decodeInteger(Int16.self) }
}

extension Int32: PostgresDecodable {
    public static func decode(from cell: PostgresCell) throws -> Int32 { try cell.decodeInteger(Int32.self) }
}

extension Int64: PostgresDecodable {
    public static func decode(from cell: PostgresCell) throws -> Int64 { try cell.decodeInteger(Int64.self) }
}

extension Bool: PostgresDecodable {
    public static func decode(from cell: PostgresCell) throws -> Bool {
        let bytes = try cell.requireBytes(decoding: Bool.self)
        try cell.requireType(.bool, decoding: Bool.self)
        switch bytes.first {
        case UInt8(ascii: "t"): return true
        case UInt8(ascii: "f"): return false
        default: throw cell.decodingError("malformed bool")
        }
    }
}

extension Double: PostgresDecodable {
    public static func decode(from cell: PostgresCell) throws -> Double {
        let bytes = try cell.requireBytes(decoding: Double.self)
        try cell.requireType(.float4, .float8, .numeric, .int2, .int4, .int8, decoding: Double.self)
        let text = String(decoding: bytes, as: UTF8.self)
        switch text {
        case "NaN": return .nan
        case "Infinity": return .infinity
        case "-Infinity": return -.infinity
        default:
            guard let value = Double(text) else { throw cell.decodingError("malformed \(cell.dataType)") }
            return value
        }
    }
}

extension PostgresTimestamp: PostgresDecodable {
    public static func decode(from cell: PostgresCell) throws -> PostgresTimestamp {
        let bytes = try cell.requireBytes(decoding: PostgresTimestamp.self)
        // `timestamp` (without time zone) is refused: its text has no offset, so any instant would be a guess.
        try cell.requireType(.timestamptz, decoding: PostgresTimestamp.self)
        guard let timestamp = PostgresTimestamp(postgresText: bytes) else {
            throw cell.decodingError("malformed or infinite timestamptz (is DateStyle ISO?)")
        }
        return timestamp
    }
}

extension Date: PostgresDecodable {
    public static func decode(from cell: PostgresCell) throws -> Date {
        try PostgresTimestamp.decode(from: cell).date
    }
}

extension UUID: PostgresDecodable {
    public static func decode(from cell: PostgresCell) throws -> UUID {
        let bytes = try cell.requireBytes(decoding: UUID.self)
        try cell.requireType(.uuid, decoding: UUID.self)
        guard let uuid = UUID(uuidString: String(decoding: bytes, as: UTF8.self)) else {
            throw cell.decodingError("malformed uuid")
        }
        return uuid
    }
}

extension Array: PostgresDecodable where Element == UInt8 {
    /// `bytea` decodes to its bytes; `json`/`jsonb` decode to the UTF-8 JSON text.
    public static func decode(from cell: PostgresCell) throws -> [UInt8] {
        let bytes = try cell.requireBytes(decoding: [UInt8].self)
        switch cell.dataType {
        case .bytea:
            guard let decoded = ByteaText.decode(bytes) else { throw cell.decodingError("malformed bytea") }
            return decoded
        case .json, .jsonb:
            return Array(bytes)
        default:
            throw cell.decodingError("cannot decode \(cell.dataType) as [UInt8]")
        }
    }
}

extension Data: PostgresDecodable {
    /// `bytea` decodes to its bytes; `json`/`jsonb` decode to the UTF-8 JSON text.
    public static func decode(from cell: PostgresCell) throws -> Data {
        Data(try [UInt8].decode(from: cell))
    }
}

extension PostgresRow {
    /// Decodes a `json`/`jsonb` (or text) column at an index with `JSONDecoder`.
    public func decodeJSON<T: Decodable>(_ type: T.Type = T.self, at index: Int, decoder: JSONDecoder = JSONDecoder())
        throws -> T
    {
        try decodeJSON(type, cell: cell(at: index), decoder: decoder)
    }

    /// Decodes a named `json`/`jsonb` (or text) column with `JSONDecoder`.
    public func decodeJSON<T: Decodable>(
        _ type: T.Type = T.self, column name: String, decoder: JSONDecoder = JSONDecoder()
    ) throws -> T {
        try decodeJSON(type, cell: cell(named: name), decoder: decoder)
    }

    private func decodeJSON<T: Decodable>(_ type: T.Type, cell: PostgresCell, decoder: JSONDecoder) throws -> T {
        let bytes = try cell.requireBytes(decoding: T.self)
        try cell.requireType(.json, .jsonb, .text, .varchar, decoding: T.self)
        do {
            return try decoder.decode(T.self, from: Data(bytes))
        } catch {
            // The DecodingError can quote values; keep only its category in the log-safe message.
            throw cell.decodingError("JSON does not decode as \(T.self)")
        }
    }
}

/// PostgreSQL's `bytea` text output: hex (`\x0a1b…`) or the legacy escape format.
enum ByteaText {
    static func decode(_ bytes: ArraySlice<UInt8>) -> [UInt8]? {
        let backslash = UInt8(ascii: "\\")
        if bytes.count >= 2, bytes[bytes.startIndex] == backslash,
            bytes[bytes.startIndex + 1] == UInt8(ascii: "x")
        {
            let hex = bytes.dropFirst(2)
            guard hex.count % 2 == 0 else { return nil }
            var output = [UInt8]()
            output.reserveCapacity(hex.count / 2)
            var index = hex.startIndex
            while index < hex.endIndex {
                guard let high = Hex.value(of: hex[index]), let low = Hex.value(of: hex[index + 1]) else {
                    return nil
                }
                output.append(high << 4 | low)
                index += 2
            }
            return output
        }
        // Escape format: printable bytes as themselves, `\\` for a backslash, `\ooo` octal for the rest.
        var output = [UInt8]()
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            guard byte == backslash else {
                output.append(byte)
                index += 1
                continue
            }
            if index + 1 < bytes.endIndex, bytes[index + 1] == backslash {
                output.append(backslash)
                index += 2
                continue
            }
            guard index + 3 < bytes.endIndex else { return nil }
            var value: UInt16 = 0
            for offset in 1...3 {
                let digit = bytes[index + offset]
                guard digit >= UInt8(ascii: "0"), digit <= UInt8(ascii: "7") else { return nil }
                value = value * 8 + UInt16(digit - UInt8(ascii: "0"))
            }
            guard value <= 255 else { return nil }
            output.append(UInt8(value))
            index += 4
        }
        return output
    }
}
