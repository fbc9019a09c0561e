import SubLedgerCore

extension Instant {
    /// Apple's milliseconds for `field` as an instant, refused outside `Instant.acceptedRange`.
    ///
    /// Every Apple date becomes an `Instant` through here (or through `AppleMilliseconds` for signed
    /// payloads), so a forged `expires_date_ms` of `Int64.max` is a named mapping error, never an overflow.
    static func apple(_ milliseconds: Int64, field: String) throws(PayloadMappingError) -> Instant {
        guard let instant = Instant(acceptedMillisecondsSince1970: milliseconds) else {
            throw PayloadMappingError(.dateOutOfRange, field: field)
        }
        return instant
    }

    /// `apple(_:field:)` for an optional field: absent stays `nil`.
    static func appleIfPresent(_ milliseconds: Int64?, field: String) throws(PayloadMappingError) -> Instant? {
        guard let milliseconds else { return nil }
        return try apple(milliseconds, field: field)
    }
}
