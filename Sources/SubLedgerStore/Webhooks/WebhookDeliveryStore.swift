import Foundation
import PostgresLibPQ
import SubLedgerCore

/// The webhook deliveries' queue, shared by any number of deliverers (`serve` and `poll` processes).
///
/// Due deliveries are claimed with `SELECT … FOR UPDATE SKIP LOCKED` and leased (`leased_until`, `leased_by`)
/// in one short transaction, as the renewal job claims its work: two deliverers never hold one delivery at
/// once, and a delivery whose deliverer died is claimed again once the lease has run out. Each attempt is
/// recorded (`webhook_delivery_attempts`) with its outcome, in one transaction per batch.
public struct WebhookDeliveryStore: Sendable {
    public let pool: PostgresPool
    /// Opens the endpoints' sealed secrets.
    public let secretKeys: SecretKeyring

    public init(pool: PostgresPool, secretKeys: SecretKeyring) {
        self.pool = pool
        self.secretKeys = secretKeys
    }

    /// One delivery claimed by this deliverer, with all it takes to send it.
    public struct DueDelivery: Sendable, Hashable {
        public var deliveryID: Int64
        public var eventID: UUID
        public var eventType: String
        /// The request body, exactly as stored.
        public var body: String
        /// When the event was written (the delivery latency runs from there).
        public var eventCreatedAt: Instant
        public var endpointID: UUID
        public var url: String
        public var allowPrivateNetwork: Bool
        /// The secrets to sign with, the current one first, then the previous one while its rotation window
        /// is open. Empty when a sealed secret could not be opened (`secretError` says why): never send then.
        public var secrets: [String]
        public var secretError: String?
        /// Attempts made before this one.
        public var attempts: Int
        /// `event`, `replay` or `test`.
        public var origin: String
    }

    /// Claims up to `limit` due deliveries: pending, whose time has come, not leased by a live deliverer,
    /// of an active endpoint (a paused endpoint's deliveries wait for it to be resumed).
    public func claimDue(limit: Int, lease: Duration, worker: String, now: Instant) async throws -> [DueDelivery] {
        try await pool.transaction { connection in
            // Three statements rather than one UPDATE joining the endpoints and apps: on Citus the deliveries are
            // the coordinator's tables and the endpoints and apps reference tables, and Citus plans no UPDATE that
            // joins both kinds. The row locks of the first keep the claim to this deliverer.
            let ids = try connection.query(
                """
                SELECT d.delivery_id FROM webhook_deliveries d
                JOIN webhook_endpoints e ON e.endpoint_id = d.endpoint_id
                WHERE d.state = 'pending' AND d.next_attempt_at <= \(timestamp(now))
                  AND (d.leased_until IS NULL OR d.leased_until < \(timestamp(now)))
                  AND e.state = 'active'
                ORDER BY d.next_attempt_at, d.delivery_id
                LIMIT \(limit)
                FOR UPDATE OF d SKIP LOCKED
                """
            ).map { try $0.decode(Int64.self, at: 0) }
            guard !ids.isEmpty else { return [] }
            let deliveries = try connection.query(
                """
                UPDATE webhook_deliveries d SET leased_until = \(timestamp(now, plus: lease)), leased_by = \(worker)
                FROM webhook_events v
                WHERE d.delivery_id = ANY (\(PostgresArrayText.integers(ids))::text::bigint[]) AND v.event_id = d.event_id
                RETURNING d.delivery_id, d.event_id, v.event_type, v.body, \(milliseconds("v.created_at")),
                          d.endpoint_id, d.attempts, d.origin
                """)
            let endpointIDs = PostgresArrayText.strings(
                Set(try deliveries.map { try $0.decode(UUID.self, at: 5).uuidString.lowercased() }).sorted())
            var endpoints: [UUID: PostgresRow] = [:]
            for row in try connection.query(
                """
                SELECT e.endpoint_id, e.url, e.allow_private_network, a.bundle_id,
                       e.secret, e.secret_sealed, e.secret_key_id,
                       e.previous_secret, e.previous_secret_sealed, e.previous_secret_key_id,
                       \(milliseconds("e.previous_secret_expires_at"))
                FROM webhook_endpoints e JOIN apps a ON a.app_id = e.app_id
                WHERE e.endpoint_id = ANY (\(endpointIDs)::text::uuid[])
                """)
            {
                endpoints[try row.decode(UUID.self, at: 0)] = row
            }
            return try deliveries.compactMap { delivery in
                try endpoints[try delivery.decode(UUID.self, at: 5)].map { endpoint in
                    try decodeDue(delivery, endpoint: endpoint, now: now)
                }
            }.sorted { $0.deliveryID < $1.deliveryID }
        }
    }

    private func decodeDue(_ row: PostgresRow, endpoint: PostgresRow, now: Instant) throws -> DueDelivery {
        // Sealed for this endpoint of this app (whadmin's WebhookEndpointStore seals them).
        let purpose = SecretPurpose.webhookSecret(
            endpointID: try endpoint.decode(UUID.self, at: 0).uuidString.lowercased(),
            bundleID: try endpoint.decode(String.self, at: 3))
        var secrets: [String] = []
        var secretError: String?
        do {
            if let current = try StoredSecret(endpoint, at: 4) {
                secrets.append(try current.open(for: purpose, with: secretKeys))
            }
            if let previous = try StoredSecret(endpoint, at: 7), let expires = try endpoint.decode(Int64?.self, at: 10),
                expires > now.millisecondsSince1970
            {
                secrets.append(try previous.open(for: purpose, with: secretKeys))
            }
            if secrets.isEmpty { secretError = "the endpoint has no signing secret" }
        } catch let error as SecretError {
            secrets = []
            secretError = "\(error.code): the endpoint's signing secret could not be opened"
        }
        return DueDelivery(
            deliveryID: try row.decode(Int64.self, at: 0),
            eventID: try row.decode(UUID.self, at: 1),
            eventType: try row.decode(String.self, at: 2),
            body: try row.decode(String.self, at: 3),
            eventCreatedAt: Instant(millisecondsSince1970: try row.decode(Int64.self, at: 4)),
            endpointID: try row.decode(UUID.self, at: 5),
            url: try endpoint.decode(String.self, at: 1),
            allowPrivateNetwork: try endpoint.decode(Bool.self, at: 2),
            secrets: secrets,
            secretError: secretError,
            attempts: Int(try row.decode(Int32.self, at: 6)),
            origin: try row.decode(String.self, at: 7))
    }

    /// What one attempt to send a claimed delivery came to.
    public struct Attempt: Sendable, Hashable {
        public var deliveryID: Int64
        public var endpointID: UUID
        public var attemptedAt: Instant
        public var duration: Duration
        /// The receiver's status; `nil` when no response came.
        public var status: Int?
        /// Why it failed (no response, a refused address, a status that is not 2xx); `nil` on success.
        public var error: String?
        /// The attempts made before this one (the wait after a failure grows with them).
        public var previousAttempts: Int

        public init(
            deliveryID: Int64, endpointID: UUID, attemptedAt: Instant, duration: Duration, status: Int?, error: String?,
            previousAttempts: Int
        ) {
            self.deliveryID = deliveryID
            self.endpointID = endpointID
            self.attemptedAt = attemptedAt
            self.duration = duration
            self.status = status
            self.error = error
            self.previousAttempts = previousAttempts
        }

        /// A 2xx answer: delivered.
        public var succeeded: Bool { status.map { (200..<300).contains($0) } ?? false }
    }

    /// Where a delivery stands after an attempt was recorded.
    public enum Outcome: String, Sendable, Hashable, CaseIterable {
        /// A 2xx answer.
        case delivered
        /// Failed; tried again later.
        case retrying
        /// Failed for the last time (retried for `giveUpAfter` and at least `minimumAttempts` times).
        case failed
        /// Not recorded: another deliverer took the delivery over after this one's lease ran out.
        case leaseLost = "lease_lost"
    }

    /// What recording a batch of attempts did.
    public struct Recorded: Sendable, Hashable {
        /// Each attempt's delivery and where it now stands.
        public var outcomes: [Int64: Outcome]
        /// Endpoints this batch paused as `failing`.
        public var pausedEndpoints: [UUID]
    }

    /// Records a batch of attempts: one `webhook_delivery_attempts` row each (even when the lease was lost:
    /// the request was sent), each delivery's new state and next attempt (by `policy`), each endpoint's run of
    /// consecutive failures, and pauses the endpoints whose failures have gone on for too long.
    public func record(
        _ attempts: [Attempt], worker: String, now: Instant, policy: WebhookRetryPolicy,
        random: @Sendable () -> Double = { Double.random(in: 0..<1) }
    ) async throws -> Recorded {
        guard !attempts.isEmpty else { return Recorded(outcomes: [:], pausedEndpoints: []) }
        let attemptRows = attempts.map { attempt in
            AttemptRow(
                d: attempt.deliveryID, at: attempt.attemptedAt.millisecondsSince1970,
                ms: Int(clamping: attempt.duration.milliseconds), s: attempt.status,
                e: attempt.error.map { String($0.prefix(2_000)) }, ok: attempt.succeeded,
                next: now.adding(
                    milliseconds: policy.delay(
                        afterAttempts: attempt.previousAttempts + 1, random: random()
                    ).milliseconds
                ).millisecondsSince1970)
        }
        let endpointRows = Self.endpointRuns(attempts)
        let attemptsJSON = try StoreJSON.encode(attemptRows)
        let endpointsJSON = try StoreJSON.encode(endpointRows)
        return try await pool.transaction { connection in
            let updated = try connection.query(
                Self.record(attempts: .jsonb(attemptsJSON), worker: worker, now: now, policy: policy))
            var outcomes: [Int64: Outcome] = [:]
            for attempt in attempts { outcomes[attempt.deliveryID] = .leaseLost }
            for row in updated {
                let state = try row.decode(String.self, at: 1)
                outcomes[try row.decode(Int64.self, at: 0)] =
                    switch state {
                    case "delivered": .delivered
                    case "failed": .failed
                    default: .retrying
                    }
            }
            try connection.query(Self.endpointRun(.jsonb(endpointsJSON)))
            let paused = try connection.query(Self.pause(.jsonb(endpointsJSON), now: now, policy: policy))
            return Recorded(outcomes: outcomes, pausedEndpoints: try paused.map { try $0.decode(UUID.self, at: 0) })
        }
    }

    /// One attempt as JSON for `jsonb_to_recordset` (short keys keep big batches small).
    private struct AttemptRow: Encodable {
        var d: Int64
        var at: Int64
        var ms: Int
        var s: Int?
        var e: String?
        var ok: Bool
        var next: Int64
    }

    /// One endpoint's attempts in a batch: whether one succeeded, the failures after the last success, and
    /// when the first of those happened.
    private struct EndpointRun: Encodable {
        var id: UUID
        var ok: Bool
        var n: Int
        var first: Int64?
    }

    private static func endpointRuns(_ attempts: [Attempt]) -> [EndpointRun] {
        var runs: [UUID: EndpointRun] = [:]
        for attempt in attempts.sorted(by: { $0.attemptedAt < $1.attemptedAt }) {
            var run = runs[attempt.endpointID] ?? EndpointRun(id: attempt.endpointID, ok: false, n: 0, first: nil)
            if attempt.succeeded {
                run.ok = true
                run.n = 0
                run.first = nil
            } else {
                run.n += 1
                run.first = run.first ?? attempt.attemptedAt.millisecondsSince1970
            }
            runs[attempt.endpointID] = run
        }
        // A fixed order keeps two deliverers' updates of the same endpoints from deadlocking.
        return runs.values.sorted { $0.id.uuidString < $1.id.uuidString }
    }

    private static func record(attempts: PostgresValue, worker: String, now: Instant, policy: WebhookRetryPolicy)
        -> PostgresQuery
    {
        """
        WITH r AS (
            SELECT * FROM jsonb_to_recordset(\(attempts)::jsonb)
                AS r(d bigint, at bigint, ms integer, s integer, e text, ok boolean, next bigint)
        ), logged AS (
            INSERT INTO webhook_delivery_attempts (delivery_id, attempted_at, duration_ms, status, error, deliverer)
            SELECT r.d, to_timestamp(r.at / 1000.0), r.ms, r.s, r.e, \(worker) FROM r
        )
        UPDATE webhook_deliveries w SET
            attempts = w.attempts + 1,
            state = CASE WHEN r.ok THEN 'delivered'
                         WHEN w.created_at <= \(timestamp(now, plus: .zero - policy.giveUpAfter)) AND w.attempts + 1 >= \(policy.minimumAttempts) THEN 'failed'
                         ELSE 'pending' END,
            next_attempt_at = CASE WHEN r.ok THEN w.next_attempt_at ELSE to_timestamp(r.next / 1000.0) END,
            leased_until = NULL, leased_by = NULL,
            last_attempt_at = to_timestamp(r.at / 1000.0), last_status = r.s, last_error = r.e,
            delivered_at = CASE WHEN r.ok THEN \(timestamp(now)) ELSE NULL END
        FROM r
        WHERE w.delivery_id = r.d AND w.state = 'pending' AND w.leased_by = \(worker)
        RETURNING w.delivery_id, w.state
        """
    }

    // Only rows that change are written: a healthy endpoint's row is not touched by every batch. A run starts
    // again when the count is 0 (a success, or `webhooks resume`, which resets the count but not the time).
    private static func endpointRun(_ endpoints: PostgresValue) -> PostgresQuery {
        """
        WITH u AS (
            SELECT * FROM jsonb_to_recordset(\(endpoints)::jsonb) AS u(id uuid, ok boolean, n integer, first bigint)
        )
        UPDATE webhook_endpoints e SET
            consecutive_failures = CASE WHEN u.ok THEN u.n ELSE e.consecutive_failures + u.n END,
            failing_since = CASE WHEN u.n = 0 THEN NULL
                                 WHEN u.ok THEN to_timestamp(u.first / 1000.0)
                                 WHEN e.consecutive_failures = 0 THEN to_timestamp(u.first / 1000.0)
                                 ELSE coalesce(e.failing_since, to_timestamp(u.first / 1000.0)) END
        FROM u
        WHERE e.endpoint_id = u.id
          AND NOT (u.ok AND u.n = 0 AND e.consecutive_failures = 0 AND e.failing_since IS NULL)
        """
    }

    private static func pause(_ endpoints: PostgresValue, now: Instant, policy: WebhookRetryPolicy) -> PostgresQuery {
        """
        UPDATE webhook_endpoints e SET state = 'paused', paused_reason = 'failing', paused_at = \(timestamp(now)), updated_at = \(timestamp(now))
        FROM jsonb_to_recordset(\(endpoints)::jsonb) AS u(id uuid, ok boolean, n integer, first bigint)
        WHERE e.endpoint_id = u.id AND u.n > 0 AND e.state = 'active'
          AND e.consecutive_failures >= \(policy.pauseAfterFailures) AND e.failing_since <= \(timestamp(now, plus: .zero - policy.pauseAfter))
        RETURNING e.endpoint_id
        """
    }

    /// Gives back every lease `worker` holds on a delivery not sent yet (graceful shutdown).
    public func releaseAll(worker: String) async throws {
        try await pool.query(
            """
            UPDATE webhook_deliveries SET leased_until = NULL, leased_by = NULL
            WHERE leased_by = \(worker) AND state = 'pending'
            """)
    }

    /// The queue as the metrics show it: pending deliveries of active endpoints, and the creation time of the
    /// oldest one's event (`nil` when there is none).
    public struct QueueStatus: Sendable, Hashable {
        public var pending: Int
        public var oldestEventCreatedAt: Instant?
    }

    public func queueStatus() async throws -> QueueStatus {
        let row = try await pool.query(
            """
            SELECT count(*), min(\(milliseconds("v.created_at")))
            FROM webhook_deliveries d
            JOIN webhook_endpoints e ON e.endpoint_id = d.endpoint_id AND e.state = 'active'
            JOIN webhook_events v ON v.event_id = d.event_id
            WHERE d.state = 'pending'
            """
        ).single()
        return QueueStatus(
            pending: Int(try row.decode(Int64.self, at: 0)),
            oldestEventCreatedAt: try row.decode(Int64?.self, at: 1).map(Instant.init(millisecondsSince1970:)))
    }
}
