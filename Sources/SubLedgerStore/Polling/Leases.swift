import PostgresLibPQ

/// The lease every claimed work queue shares (`chains`, `receipts`, `notifications`, `store_obligations`,
/// `consumption_requests`): a worker claims rows by setting `leased_until` and `leased_by`, and a row whose
/// lease ran out is claimable again, so a worker that died loses nothing.
enum Leases {
    /// Gives back every lease `worker` holds in `table` (on graceful shutdown), so other workers need not
    /// wait them out. `table` is a literal fragment, never data.
    static func releaseAll(in table: PostgresQuery, worker: String) -> PostgresQuery {
        "UPDATE \(table) SET leased_until = NULL, leased_by = NULL WHERE leased_by = \(worker)"
    }
}
