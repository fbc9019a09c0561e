import PostgresLibPQ
import SubLedgerCore

/// The audit trail of one original transaction: its chain(s) as stored now, and every input and effect.
public struct ChainAudit: Sendable, Hashable, Codable {
    /// The chain row as it stands (one per app and environment holding the original transaction id).
    public struct Chain: Sendable, Hashable, Codable {
        public var bundleID: String
        public var environment: String
        public var productID: String
        public var ownerAccountID: String?
        public var state: String
        public var expirationReason: String?
        public var expiresAt: Instant?
        public var willAutoRenew: Bool?
        public var inBillingRetry: Bool
    }

    public var originalTransactionID: String
    public var chains: [Chain]
    public var events: [TimelineEvent]
}

extension Reports {
    /// The audit trail of `originalTransactionID`, oldest first: its chain rows as they stand, and its
    /// transactions, state changes, ownership bindings, ledger entries and the inputs those entries were
    /// applied from (see `ReportStore.chainEvents`).
    public static func original(
        _ originalTransactionID: String, on connection: PostgresConnection, scope: ReportScope
    ) throws -> ChainAudit {
        let store = try ReportStore(on: connection, scope: scope)
        let chains = try store.auditedChains(originalTransactionID)
        guard !chains.isEmpty else {
            throw ReportError.notFound("no chain with original transaction id '\(originalTransactionID)' in the ledger")
        }
        let events = try store.chainEvents(originalTransactionID)
        return ChainAudit(
            originalTransactionID: originalTransactionID, chains: chains, events: TimelineEvent.chronological(events))
    }
}
