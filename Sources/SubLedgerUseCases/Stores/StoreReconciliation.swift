import SubLedgerCore

/// What a store's dropped pushes missed, read back from the store and applied: the App Store's notification
/// history (`NotificationRecovery`), Google Play's voided purchases (`GooglePlayVoidedPurchases`). One
/// `ReconciliationPoller` runs every store's, each at its own `interval`.
///
/// A pass covers every app of the catalog that sells in the store; it keeps its own cursors (leased, so processes
/// share the work) and applies what it reads through the store's ingestion, so reading the same thing twice changes
/// nothing. A pass reports an app that failed and goes on with the others; it throws only when it could not run at
/// all (the catalog unreadable).
public protocol StoreReconciliation: Sendable {
    /// The store it reads.
    var store: Store { get }
    /// How often a pass runs.
    var interval: Duration { get }
    /// One pass over every app.
    func reconcile() async throws -> ReconciliationOutcome
}

/// What one pass of a `StoreReconciliation` did.
public struct ReconciliationOutcome: Sendable, Hashable, CustomStringConvertible {
    /// The pass's report, for the log.
    public var summary: String
    /// Whether it read or applied anything, or failed somewhere (a pass that found nothing to do is not logged).
    public var isWorthLogging: Bool

    public init(summary: String, isWorthLogging: Bool) {
        self.summary = summary
        self.isWorthLogging = isWorthLogging
    }

    public var description: String { summary }
}
