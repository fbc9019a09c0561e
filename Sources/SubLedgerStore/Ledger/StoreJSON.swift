import Foundation
import PostgresLibPQ
import SubLedgerCore

/// JSON for jsonb columns holding the core's values, and small conversions shared by the row types.
enum StoreJSON {
    // One configured coder each, shared: they hold only options, and every apply encodes and decodes chains.
    private static let encoder: JSONEncoder = {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        return encoder
    }()
    private static let decoder = JSONDecoder()

    static func encode(_ value: some Encodable) throws -> String {
        String(decoding: try encoder.encode(value), as: UTF8.self)
    }

    static func decode<T: Decodable>(_ type: T.Type, from text: String, what: String) throws -> T {
        do {
            return try decoder.decode(type, from: Data(text.utf8))
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
func milliseconds(_ column: PostgresQuery) -> PostgresQuery {
    "(extract(epoch FROM \(column)) * 1000)::bigint"
}
