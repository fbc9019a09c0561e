/// A signed payload that is read from the members `CompactJWS`'s one scan located, without a JSON decoder,
/// when they are all in the plain form Apple writes.
///
/// A notification carries three signed payloads (the notification, its transaction and its renewal info),
/// and a `JSONDecoder` pass over each, after the scan that had already walked the same bytes, was a visible
/// share of the CPU per notification. A reader gives exactly the value `JSONDecoder` gives, or `nil`, and the
/// caller then decodes with `JSONDecoder`, so what is accepted or refused never changes.
protocol PlainReadablePayload: Decodable {
    /// The payload read from its top-level members; throws when a member is not in a form
    /// `CapturedJSONObject` reads, or is one the JSON decoder refuses. Unknown members are ignored, as the
    /// decoder ignores them.
    init(plain members: CapturedJSONObject) throws(CapturedJSONObject.NotPlain)
}
