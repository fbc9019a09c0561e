import SubLedgerCore

/// A consumption request, as the obligation that answers it reads it.
public struct DueConsumptionRequest: Sendable, Hashable {
    public var requestID: Int64
    public var appID: Int64
    public var bundleID: String
    public var environment: StoreEnvironment
    public var transactionID: String
    public var chainID: String
    public var requestedAt: Instant
    /// Apple's deadline: 12 hours after it sent the notification.
    public var deadline: Instant
    /// Calls to Apple made so far.
    public var attempts: Int
    /// Whether it still waits for its answer (pending or retry).
    public var waiting: Bool
}
