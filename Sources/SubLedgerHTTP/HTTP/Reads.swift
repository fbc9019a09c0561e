import SubLedgerStore
import SubLedgerUseCases

/// Where the reads that may come from a replica go: entitlements, subscriptions, transactions, the reports and
/// the admin page. Through `ReadReplicas` when standbys are configured, else to the primary.
struct Reads: Sendable {
    let primary: LedgerStore
    let replicas: ReadReplicas?

    /// Runs `body` on the store that answers this request's read (its consistency token, if any, honoured).
    func read<T: Sendable>(
        _ context: SubLedgerRequestContext, _ body: @Sendable (LedgerStore) async throws -> T
    ) async throws -> T {
        guard let replicas else { return try await body(primary) }
        return try await replicas.read(token: context.consistencyToken, body)
    }
}
