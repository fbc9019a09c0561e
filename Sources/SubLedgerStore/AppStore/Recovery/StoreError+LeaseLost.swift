extension StoreError.Code {
    /// The worker's lease on a shared piece of work (a notification history cursor) ran out and another
    /// process holds it now: the worker stops, leaving the work to that process.
    public static let leaseLost = StoreError.Code(rawValue: "lease_lost")
}
