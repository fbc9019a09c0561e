import Foundation
import PostgresLibPQ
import SubLedgerCore

/// JSON for jsonb columns holding the core's values, and small conversions shared by the row types.
enum StoreJSON {
    static func encode(_ value: some Encodable) throws -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    static func decode<T: Decodable>(_ type: T.Type, from text: String, what: String) throws -> T {
        do {
            return try JSONDecoder().decode(type, from: Data(text.utf8))
        } catch {
            throw StoreError(code: .corruptRow, message: "a stored \(what) does not decode: \(error)")
        }
    }
}

/// A timestamptz parameter from an optional instant.
func timestamp(_ instant: Instant?) -> PostgresValue {
    instant.map { .timestamptz(millisecondsSince1970: $0.millisecondsSince1970) } ?? .null
}

/// SQL that turns a timestamptz column into whole milliseconds since 1970.
func millisecondsSQL(_ column: String) -> String {
    "(extract(epoch FROM \(column)) * 1000)::bigint"
}
