extension Duration {
    /// Whole seconds, rounded up, at least 1: a `Retry-After` value.
    package var retryAfterSeconds: Int {
        let (seconds, attoseconds) = components
        let whole = attoseconds > 0 ? seconds + 1 : seconds
        return Int(max(1, min(whole, 86_400)))
    }
}
