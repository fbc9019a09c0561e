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

/// A timestamptz parameter `duration` after (or, negative, before) `instant`, computed here rather than by
/// `timestamptz + interval` in the statement: PostgreSQL marks that operator STABLE, and Citus refuses a STABLE
/// function in an UPDATE that also names a column, in a CASE, in `ON CONFLICT DO UPDATE` or in RETURNING.
func timestamp(_ instant: Instant, plus duration: Duration) -> PostgresValue {
    timestamp(instant.adding(milliseconds: duration.milliseconds))
}

/// SQL that turns a timestamptz column into microseconds since 1970, exactly (as `ledger_chain_field` encodes it),
/// IMMUTABLE as `milliseconds` is.
func microseconds(_ column: PostgresQuery) -> PostgresQuery {
    "(extract(epoch FROM (\(column)) - timestamptz 'epoch') * 1000000)::bigint"
}

/// SQL that turns a timestamptz column into whole milliseconds since 1970. The difference from the epoch is
/// IMMUTABLE (`extract(epoch FROM timestamptz)` is STABLE, which Citus refuses in RETURNING and CASE).
func milliseconds(_ column: PostgresQuery) -> PostgresQuery {
    "(extract(epoch FROM (\(column)) - timestamptz 'epoch') * 1000)::bigint"
}

/// SQL that turns whole milliseconds since 1970 (an SQL expression) into a timestamptz, in a form PostgreSQL
/// marks IMMUTABLE (`to_timestamp(float8)`; exact to the millisecond).
func timestamptz(milliseconds expression: PostgresQuery) -> PostgresQuery {
    "to_timestamp((\(expression))::float8 / 1000)"
}
