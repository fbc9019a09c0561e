/// An amount that could not be converted into the reporting currency: no exchange rate for `currency` on or
/// before `day` (the first such day in the report). It is left out of the converted figures, never guessed.
public struct MissingRate: Sendable, Hashable, Codable {
    public var currency: String
    /// `YYYY-MM-DD`.
    public var day: String
}
