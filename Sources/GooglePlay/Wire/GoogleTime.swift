import SubLedgerCore

/// Google's timestamps (`google-datetime`): RFC 3339 in UTC with up to nine fractional digits, e.g.
/// `2025-01-01T00:00:00.123Z`. Read with SubLedger's one parser; written to the millisecond.
public enum GoogleTime {
    /// The instant of `text`, or `nil` when it is not RFC 3339 or lies outside what SubLedger accepts.
    public static func parse(_ text: String?) -> Instant? {
        guard let text, text.utf8.count <= 64 else { return nil }
        return Instant(acceptedRFC3339: text)
    }

    /// `2025-01-01T00:00:00.123Z`.
    public static func format(_ instant: Instant) -> String {
        RFC3339.format(instant, precision: .milliseconds)
    }
}
