import CatalogFile
import Foundation
import HTTPTestSupport
import LedgerTestSupport
import Logging
import PostgresLibPQ
import SubLedgerCore
import SubLedgerStore
import SubLedgerTestSupport
import Synchronization
import Testing

@testable import SubLedgerHTTP
@testable import SubLedgerUseCases

/// A migrated test schema with one app, and what the delivery tests do to it: register endpoints and write
/// events straight into the outbox (the fan-out trigger makes the deliveries), as the producers would.
struct WebhookDeliveryHarness: Sendable {
    let schema: String
    let pool: PostgresPool
    let appID: Int64
    static let secret = "whsec_delivery-tests-current"
    static let catalogYAML = """
        apps:
          - bundle_id: com.example.webhooks
            environments: [sandbox]
            products:
              - { product_id: webhooks.monthly, type: auto_renewable, subscription_group_id: "g", entitlements: [pro] }
        """
    static let previousSecret = "whsec_delivery-tests-previous"

    static func with<T: Sendable>(_ body: (WebhookDeliveryHarness) async throws -> T) async throws -> T {
        try await TestDatabase.withSchema(maxConnections: 8, template: .ledger) { schema, _, pool in
            try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
            let catalogStore = CatalogStore(pool: pool, secretKeys: SecretKeyring())
            try await catalogStore.applyCatalog(try CatalogFile.read(catalogYAML).catalog)
            let appID = try await pool.query(
                "SELECT app_id FROM apps WHERE bundle_id = 'com.example.webhooks'"
            ).single().decode(Int64.self, at: 0)
            return try await body(WebhookDeliveryHarness(schema: schema, pool: pool, appID: appID))
        }
    }

    /// An active endpoint signing with `secret` (and `previousSecret` until `previousExpiresIn` from now).
    @discardableResult
    func addEndpoint(
        url: String, allowPrivateNetwork: Bool = false, previousExpiresIn: Duration? = nil
    ) async throws -> UUID {
        let id = UUID()
        try await pool.query(
            """
            INSERT INTO webhook_endpoints (endpoint_id, app_id, url, allow_private_network, secret,
                previous_secret, previous_secret_expires_at)
            VALUES (\(id), \(appID), \(url), \(allowPrivateNetwork), \(Self.secret),
                \(previousExpiresIn.map { _ in Self.previousSecret }), now() +
                \(previousExpiresIn.map { $0.milliseconds } ?? 0) * interval '1 millisecond')
            """)
        return id
    }

    /// Writes `count` events; each body is `{"id": "<uuid>", "type": "test.delivery", "n": i}`.
    @discardableResult
    func insertEvents(_ count: Int, type: String = "entitlement.extended") async throws -> [UUID] {
        let ids = (0..<count).map { _ in UUID() }
        try await pool.transaction { connection in
            for (index, id) in ids.enumerated() {
                let key = id.uuidString.lowercased()
                try connection.query(
                    """
                    INSERT INTO webhook_events (event_id, app_id, environment, event_type, occurred_at, cause_kind,
                        idempotency_key, body)
                    VALUES (\(id), \(appID), 'Sandbox', \(type), now(), 'admin', \("delivery-test:\(key)"),
                        \(#"{"id":"\#(key)","type":"\#(type)","n":\#(index)}"#))
                    """)
            }
        }
        return ids
    }

    /// Delivery states, counted.
    func states() async throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for row in try await pool.query("SELECT state, count(*) FROM webhook_deliveries GROUP BY state") {
            counts[try row.decode(String.self, at: 0)] = Int(try row.decode(Int64.self, at: 1))
        }
        return counts
    }

    func endpointState(_ id: UUID) async throws -> (state: String, reason: String?, failures: Int, failingSince: Bool) {
        let row = try await pool.query(
            """
            SELECT state, paused_reason, consecutive_failures, failing_since IS NOT NULL FROM webhook_endpoints WHERE
                endpoint_id = \(id)
            """
        ).single()
        return (
            try row.decode(String.self, at: 0), try row.decode(String?.self, at: 1),
            Int(try row.decode(Int32.self, at: 2)), try row.decode(Bool.self, at: 3)
        )
    }

    var store: WebhookDeliveryStore { WebhookDeliveryStore(pool: pool, secretKeys: SecretKeyring()) }

    /// A deliverer with quick retries, so that a test sees several attempts in well under a second.
    func deliverer(
        worker: String = "test-\(UUID().uuidString.prefix(8))", retry: WebhookRetryPolicy = Self.quickRetry,
        sender: WebhookSender.Configuration = WebhookSender.Configuration(), sweep: Duration = .milliseconds(50),
        resolver: WebhookAddressResolver = .system
    ) -> WebhookDeliverer {
        var configuration = WebhookDeliverer.Configuration(worker: worker)
        configuration.retry = retry
        configuration.sender = sender
        configuration.sweepInterval = sweep
        configuration.batchSize = 50
        return WebhookDeliverer(
            configuration: configuration, store: store, resolver: resolver, logger: TestDatabase.logger)
    }

    static let quickRetry = WebhookRetryPolicy(base: .milliseconds(5), maximum: .milliseconds(40))

    /// Runs `deliverDue` until `done` holds or `timeout` passes; returns whether it held.
    func deliverUntil(
        _ deliverer: WebhookDeliverer, timeout: Duration = .seconds(60), _ done: () async throws -> Bool
    ) async throws -> Bool {
        let deadline = ContinuousClock.now.advanced(by: timeout)
        while ContinuousClock.now < deadline {
            _ = try await deliverer.deliverDue()
            if try await done() { return true }
            try await Task.sleep(for: .milliseconds(10))
        }
        return try await done()
    }
}

/// What a test receiver saw: every verified event id (with repeats) and every refusal.
final class ReceivedEvents: Sendable {
    private let state = Mutex<(ids: [String], badSignatures: Int, inFlight: [String: Int], overlaps: Int)>(
        ([], 0, [:], 0))

    /// Verifies the request as a receiver would; `nil` when the signature does not verify.
    func accept(_ request: StubRequest, secrets: [String] = [WebhookDeliveryHarness.secret]) -> String? {
        guard let header = request.header(WebhookSignature.headerName),
            (try? WebhookSignature.verify(
                header: header, body: Array(request.body), secrets: secrets, now: Int64(Date().timeIntervalSince1970)))
                != nil,
            let object = try? JSONSerialization.jsonObject(with: request.body) as? [String: Any],
            let id = object["id"] as? String, request.header("SubLedger-Event-Id") == id
        else {
            state.withLock { $0.badSignatures += 1 }
            return nil
        }
        state.withLock { $0.ids.append(id) }
        return id
    }

    /// Marks `id` as being handled (to catch two deliverers sending one delivery at the same time).
    func begin(_ id: String) {
        state.withLock {
            $0.inFlight[id, default: 0] += 1
            if $0.inFlight[id, default: 0] > 1 { $0.overlaps += 1 }
        }
    }

    func end(_ id: String) {
        state.withLock { $0.inFlight[id, default: 1] -= 1 }
    }

    var ids: [String] { state.withLock { $0.ids } }
    var distinct: Set<String> { Set(ids) }
    var badSignatures: Int { state.withLock { $0.badSignatures } }
    var overlaps: Int { state.withLock { $0.overlaps } }
}

extension Duration {
    var milliseconds: Int64 {
        let (seconds, attoseconds) = components
        return seconds * 1000 + attoseconds / 1_000_000_000_000_000
    }
}
