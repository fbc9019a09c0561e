import PostgresLibPQ

extension ReportStore {
    /// The scope's webhook endpoints that are not removed, with their deliveries counted by state.
    func webhookEndpointsPanel() throws -> [WebhooksPanel.Endpoint] {
        try run(
            """
            WITH \(apps)
            SELECT e.endpoint_id::text, s.bundle_id, e.url, e.state, e.paused_reason, e.consecutive_failures,
                   count(d.delivery_id) FILTER (WHERE d.state = 'pending'),
                   count(d.delivery_id) FILTER (WHERE d.state = 'failed'),
                   count(d.delivery_id) FILTER (WHERE d.state = 'delivered'),
                   min(d.created_at) FILTER (WHERE d.state = 'pending'),
                   max(d.delivered_at)
            FROM webhook_endpoints e JOIN scope s ON s.app_id = e.app_id
            LEFT JOIN webhook_deliveries d ON d.endpoint_id = e.endpoint_id
            WHERE e.state <> 'removed'
              AND (\(scope.environment)::text IS NULL OR cardinality(e.environments) = 0
                   OR \(scope.environment)::text = ANY (e.environments))
            GROUP BY e.endpoint_id, s.bundle_id
            ORDER BY s.bundle_id, e.created_at, e.endpoint_id
            """
        ).map { row in
            WebhooksPanel.Endpoint(
                endpointID: try row.decode(String.self, at: 0), bundleID: try row.decode(String.self, at: 1),
                url: try row.decode(String.self, at: 2), state: try row.decode(String.self, at: 3),
                pausedReason: try row.decode(String?.self, at: 4),
                consecutiveFailures: Int(try row.decode(Int32.self, at: 5)),
                pending: try row.decode(Int.self, at: 6), failed: try row.decode(Int.self, at: 7),
                delivered: try row.decode(Int.self, at: 8), oldestPendingSince: try row.optionalInstant(at: 9),
                lastDeliveredAt: try row.optionalInstant(at: 10))
        }
    }

    /// The scope's most recent failed delivery attempts (no response, or a status outside 2xx), newest first.
    /// Attempts are indexed by time, so the newest are found without reading the whole history.
    func recentWebhookFailures(limit: Int) throws -> [WebhooksPanel.Failure] {
        try run(
            """
            WITH \(apps)
            SELECT a.attempted_at, s.bundle_id, e.url, ev.event_type, ev.event_id::text, a.status, a.error
            FROM webhook_delivery_attempts a
            JOIN webhook_deliveries d ON d.delivery_id = a.delivery_id
            JOIN webhook_endpoints e ON e.endpoint_id = d.endpoint_id
            JOIN scope s ON s.app_id = e.app_id
            JOIN webhook_events ev ON ev.event_id = d.event_id
            WHERE (a.status IS NULL OR a.status NOT BETWEEN 200 AND 299) AND \(inEnvironment("ev.environment"))
            ORDER BY a.attempted_at DESC, a.attempt_id DESC
            LIMIT \(limit)
            """
        ).map { row in
            WebhooksPanel.Failure(
                attemptedAt: try row.instant(at: 0), bundleID: try row.decode(String.self, at: 1),
                url: try row.decode(String.self, at: 2), eventType: try row.decode(String.self, at: 3),
                eventID: try row.decode(String.self, at: 4), status: try row.decode(Int32?.self, at: 5).map(Int.init),
                error: try row.decode(String?.self, at: 6))
        }
    }
}
