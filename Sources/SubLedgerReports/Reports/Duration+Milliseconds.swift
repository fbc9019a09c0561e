import SubLedgerCore

extension Duration {
    /// The duration in whole milliseconds (a fraction truncated toward zero), held at the ends of `Int64` rather
    /// than trapping: the step an `Instant` takes (`Instant.adding(milliseconds:)`).
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds.saturatingMultiplied(by: 1_000).saturatingAdding(attoseconds / 1_000_000_000_000_000)
    }
}
