import PostgresLibPQ
import SubLedgerCore

extension PostgresQuery.StringInterpolation {
    /// An instant, sent as the next parameter: a `timestamptz` exact to the millisecond, as the ledger's store binds
    /// instants (`PostgresValue.timestamptz(millisecondsSince1970:)`).
    mutating func appendInterpolation(_ instant: Instant) {
        appendInterpolation(PostgresValue.timestamptz(millisecondsSince1970: instant.millisecondsSince1970))
    }
}

extension PostgresRow {
    /// The `timestamptz` column at `index` as an instant: PostgreSQL's microseconds truncated toward the past to
    /// whole milliseconds, so the instant falls in the same second (and millisecond) as the stored value.
    func instant(at index: Int) throws -> Instant {
        Instant(millisecondsSince1970: try decode(PostgresTimestamp.self, at: index).millisecondsSince1970)
    }

    /// `instant(at:)` of a column that may be NULL.
    func optionalInstant(at index: Int) throws -> Instant? {
        try decode(PostgresTimestamp?.self, at: index).map { Instant(millisecondsSince1970: $0.millisecondsSince1970) }
    }
}
