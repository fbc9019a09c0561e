import NIOCore

extension Duration {
    /// The same span as NIO's `TimeAmount`, clamped to what it can hold.
    var timeAmount: TimeAmount {
        let (seconds, attoseconds) = components
        let nanoseconds = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !nanoseconds.overflow else { return .nanoseconds(seconds < 0 ? .min : .max) }
        return .nanoseconds(nanoseconds.partialValue + attoseconds / 1_000_000_000)
    }
}
