import PostgresLibPQ
import SubLedgerCore

extension LedgerStore {
    /// How the last error of a stored receipt begins when it waits only because Apple was unavailable (verifyReceipt
    /// failed, or the circuit breaker refused the call): those inputs become due at once when Apple answers
    /// again (`makeAppleDeferredInputsDue`); inputs refused for their own reasons keep their backoff.
    public static let appleDeferredPrefix = "apple_unavailable: "

    /// The receipts waiting for Apple: in `retry` with an error that begins with `appleDeferredPrefix`, and of
    /// those the ones not due yet at `now`, with the app of the oldest (the one to ask Apple about first).
    public struct AppleDeferredInputs: Sendable, Hashable {
        public var total: Int
        public var waiting: Int
        public var oldestWaitingBundleID: String?
    }

    public func appleDeferredInputs(now: Instant) async throws -> AppleDeferredInputs {
        let row = try await pool.query(
            """
            SELECT count(*), count(*) FILTER (WHERE r.next_attempt_at > \(timestamp(now))::timestamptz),
                (array_agg(a.bundle_id ORDER BY r.received_at, r.receipt_id)
                    FILTER (WHERE r.next_attempt_at > \(timestamp(now))::timestamptz))[1]
            FROM receipts r JOIN apps a ON a.app_id = r.app_id
            WHERE r.status = 'retry' AND starts_with(r.last_error, \(Self.appleDeferredPrefix))
            """
        ).single()
        return AppleDeferredInputs(
            total: Int(try row.decode(Int64.self, at: 0)), waiting: Int(try row.decode(Int64.self, at: 1)),
            oldestWaitingBundleID: try row.decode(String?.self, at: 2))
    }

    /// Apple answers again: every receipt deferred because it did not becomes due at `now` (its backoff was
    /// for Apple, not for the receipt). Returns how many were waiting.
    @discardableResult
    public func makeAppleDeferredInputsDue(now: Instant) async throws -> Int {
        try await pool.query(
            """
            UPDATE receipts SET next_attempt_at = \(timestamp(now))::timestamptz
            WHERE status = 'retry' AND starts_with(last_error, \(Self.appleDeferredPrefix)) AND next_attempt_at >
                \(timestamp(now))::timestamptz
            RETURNING 1
            """
        ).count
    }
}
