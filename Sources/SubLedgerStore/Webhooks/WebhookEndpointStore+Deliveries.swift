import Foundation
import PostgresLibPQ
import SubLedgerCore

/// An endpoint's deliveries: listing them, sending it a test event, replaying past events to it.
extension WebhookEndpointStore {
    /// At most this many attempts are listed per delivery.
    public static let attemptsPerDelivery = 5

    /// The endpoint's most recent deliveries (newest first, at most `limit`), only those in `state` when given.
    public func deliveries(endpointID id: String, state: String?, limit: Int) async throws -> [WebhookDeliveryListing] {
        let rows = try await pool.query(
            """
            SELECT d.delivery_id, d.event_id::text, ev.event_type, ev.account_id, d.state, d.origin, d.attempts,
                CASE WHEN d.state = 'pending' THEN \(Self.utc("d.next_attempt_at")) END, d.last_status, d.last_error,
                \(Self.utc("d.delivered_at")), \(Self.utc("d.created_at")),
                (SELECT coalesce(json_agg(json_build_object(
                        'attempted_at', \(Self.utc("a.attempted_at")), 'duration_ms', a.duration_ms,
                        'status', a.status, 'error', a.error) ORDER BY a.attempt_id DESC), '[]')::text
                 FROM (SELECT * FROM webhook_delivery_attempts x WHERE x.delivery_id = d.delivery_id
                       ORDER BY x.attempt_id DESC LIMIT \(Self.attemptsPerDelivery)) a)
            FROM webhook_deliveries d JOIN webhook_events ev USING (event_id)
            WHERE d.endpoint_id = \(id)::uuid AND (\(state)::text IS NULL OR d.state = \(state))
            ORDER BY d.delivery_id DESC LIMIT \(limit)
            """ as PostgresQuery)
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        return try rows.map { row in
            let attempts: [WebhookDeliveryListing.Attempt]
            do {
                attempts = try decoder.decode(
                    [WebhookDeliveryListing.Attempt].self, from: Data(try row.decode(String.self, at: 12).utf8))
            } catch {
                throw StoreError(code: .corruptRow, message: "a delivery's attempts do not decode")
            }
            return WebhookDeliveryListing(
                deliveryID: try row.decode(Int64.self, at: 0), eventID: try row.decode(String.self, at: 1),
                eventType: try row.decode(String.self, at: 2), accountID: try row.decode(String?.self, at: 3),
                state: try row.decode(String.self, at: 4), origin: try row.decode(String.self, at: 5),
                attempts: Int(try row.decode(Int32.self, at: 6)), nextAttemptAt: try row.decode(String?.self, at: 7),
                lastStatus: try row.decode(Int32?.self, at: 8).map(Int.init),
                lastError: try row.decode(String?.self, at: 9),
                deliveredAt: try row.decode(String?.self, at: 10), createdAt: try row.decode(String.self, at: 11),
                recentAttempts: attempts)
        }
    }

    /// A test event to send to one endpoint.
    public struct TestEvent: Sendable, Hashable {
        public var eventID: UUID
        public var environment: String
        public var eventType: String
        public var occurredAt: Instant
        /// The JSON text delivered.
        public var body: String

        public init(eventID: UUID, environment: String, eventType: String, occurredAt: Instant, body: String) {
            self.eventID = eventID
            self.environment = environment
            self.eventType = eventType
            self.occurredAt = occurredAt
            self.body = body
        }
    }

    /// Writes `event` (cause `test`, about no account) and its one delivery, to the endpoint `id` only, and
    /// wakes the deliverers; returns the delivery id, `nil` when there is no such endpoint that is not removed.
    public func insertTestEvent(_ event: TestEvent, endpointID id: String) async throws -> Int64? {
        let eventID = event.eventID.uuidString.lowercased()
        return try await pool.transaction { connection in
            // The fan-out trigger skips cause 'test': the one delivery below is the only one.
            let inserted = try connection.query(
                """
                INSERT INTO webhook_events (event_id, app_id, environment, event_type, occurred_at, cause_kind,
                    cause_id, idempotency_key, body)
                SELECT \(eventID)::uuid, e.app_id, \(event.environment), \(event.eventType), \(timestamp(event.occurredAt)),
                    'test', NULL, 'test:' || \(eventID), \(event.body)
                FROM webhook_endpoints e WHERE e.endpoint_id = \(id)::uuid AND e.state <> 'removed'
                """)
            guard inserted.rowsAffected == 1 else { return nil }
            let delivery = try connection.query(
                """
                INSERT INTO webhook_deliveries (event_id, endpoint_id, origin) VALUES (\(eventID)::uuid, \(id)::uuid,
                    'test')
                RETURNING delivery_id
                """
            ).single().decode(Int64.self, at: 0)
            try connection.query("SELECT pg_notify('subledger_webhooks', '')")
            return delivery
        }
    }

    /// What `replay` did.
    public enum ReplayOutcome: Sendable, Hashable {
        /// No such endpoint that is not removed.
        case unknownEndpoint
        /// More events match than the maximum: nothing was queued.
        case tooMany(matching: Int, maximum: Int)
        /// This many deliveries were queued.
        case queued(Int)
    }

    /// Queues a new delivery (origin `replay`) to the endpoint of every event of its app written in
    /// `[since, until)` that the endpoint's filters and `eventTypes` (when not empty) let through, test
    /// events excepted. Nothing is queued when more than `maximum` match, so one command cannot flood a
    /// receiver by mistake.
    public func replay(
        endpointID id: String, since: Instant, until: Instant?, eventTypes: [String], maximum: Int
    ) async throws -> ReplayOutcome {
        let types = try Self.jsonArray(eventTypes)
        return try await pool.transaction { connection in
            let matching: PostgresQuery = """
                FROM webhook_events ev JOIN webhook_endpoints e ON e.app_id = ev.app_id
                WHERE e.endpoint_id = \(id)::uuid AND ev.cause_kind <> 'test'
                  AND ev.created_at >= \(timestamp(since))::timestamptz
                  AND (\(timestamp(until))::timestamptz IS NULL OR ev.created_at < \(timestamp(until))::timestamptz)
                  AND (jsonb_array_length(\(types)::jsonb) = 0
                       OR ev.event_type IN (SELECT jsonb_array_elements_text(\(types)::jsonb)))
                  AND (cardinality(e.event_types) = 0 OR ev.event_type = ANY (e.event_types))
                  AND (cardinality(e.environments) = 0 OR ev.environment = ANY (e.environments))
                """
            let endpoint = try connection.query(
                "SELECT 1 FROM webhook_endpoints WHERE endpoint_id = \(id)::uuid AND state <> 'removed' FOR UPDATE")
            guard endpoint.count == 1 else { return .unknownEndpoint }
            let count = Int(
                try connection.query("SELECT count(*) \(matching)").single()
                    .decode(Int64.self, at: 0))
            guard count <= maximum else { return .tooMany(matching: count, maximum: maximum) }
            guard count > 0 else { return .queued(0) }
            let inserted = try connection.query(
                """
                INSERT INTO webhook_deliveries (event_id, endpoint_id, origin)
                SELECT ev.event_id, e.endpoint_id, 'replay'
                \(matching) ORDER BY ev.created_at, ev.event_id
                """)
            try connection.query("SELECT pg_notify('subledger_webhooks', '')")
            return .queued(inserted.rowsAffected)
        }
    }
}
