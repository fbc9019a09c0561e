import AppStore
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import PostgresLibPQ
import SubLedgerCore
import SubLedgerHTTP
import SubLedgerStore
import SubLedgerTestSupport
import SubLedgerUseCases
import Testing

/// `/v1/admin/webhooks` over HTTP: managing endpoints, sealed secrets shown once, rotation, pause and resume,
/// removal, test events, deliveries, replays, the admin page's panel, and a coded refusal for every bad input.
@Suite struct WebhookAdminRoutesTests {
    typealias H = ServiceHarness

    static func send(
        _ client: some TestClientProtocol, _ method: HTTPRequest.Method, _ uri: String, key: String,
        _ object: [String: Any]? = nil, raw: String? = nil
    ) async throws -> (status: HTTPResponse.Status, json: [String: Any]) {
        let headers: HTTPFields = [.contentType: "application/json", .authorization: "Bearer \(key)"]
        let body =
            try raw.map { ByteBuffer(string: $0) }
            ?? object.map { ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: $0)) }
        let response = try await client.executeRequest(uri: uri, method: method, headers: headers, body: body)
        let parsed = (try? JSONSerialization.jsonObject(with: Data(buffer: response.body))) as? [String: Any] ?? [:]
        return (response.status, parsed)
    }

    static func endpointStore(_ harness: H) -> WebhookEndpointStore {
        WebhookEndpointStore(pool: harness.pool, secretKeys: harness.catalog.secretKeys)
    }

    /// Writes an event of app one as the events' outbox would (the fan-out trigger makes its deliveries).
    static func insertEvent(_ harness: H, type: String, account: String, sequence: Int64, createdAt: String)
        async throws
    {
        try await harness.pool.query(
            """
            INSERT INTO webhook_events (event_id, app_id, environment, account_id, account_sequence, event_type,
                occurred_at, cause_kind, cause_id, idempotency_key, body, created_at)
            SELECT gen_random_uuid(), app_id, 'Production', \(account), \(sequence), \(type),
                \(createdAt)::timestamptz, 'notification', 'n',
                'test-' || gen_random_uuid(), '{}', \(createdAt)::timestamptz
            FROM apps WHERE bundle_id = 'com.example.one'
            """)
    }

    @Test func endpointsAreAddedListedRotatedPausedResumedAndRemoved() async throws {
        try await H.run { harness, client in
            let admin = try await harness.keys.create(bundleID: nil, name: "ops").secret
            let forbidden = try await Self.send(client, .get, "/v1/admin/webhooks", key: harness.keyOne)
            #expect(forbidden.status == .forbidden)

            let added = try await Self.send(
                client, .post, "/v1/admin/webhooks", key: admin,
                [
                    "bundle_id": H.appOne, "url": "http://127.0.0.1:4242/hooks", "description": "dev",
                    "event_types": ["entitlement.granted", "entitlement.revoked"], "environments": ["production"],
                ])
            #expect(added.status == .created)
            let secret = try #require(added.json["secret"] as? String)
            #expect(secret.hasPrefix("whsec_"))
            let endpoint = try #require(added.json["endpoint"] as? [String: Any])
            let id = try #require(endpoint["endpoint_id"] as? String)
            #expect(endpoint["event_types"] as? [String] == ["entitlement.granted", "entitlement.revoked"])
            #expect(endpoint["environments"] as? [String] == ["Production"])
            #expect(endpoint["state"] as? String == "active")
            // Sealed with the service's key, never stored or listed in plaintext.
            #expect(endpoint["secret_key_id"] as? String == harness.catalog.secretKeys.current?.id)
            let plaintext = try await harness.pool.query(
                "SELECT count(*) FROM webhook_endpoints WHERE secret IS NOT NULL OR position(\(secret) in url) > 0"
            ).single().decode(Int64.self, at: 0)
            #expect(plaintext == 0)

            let listed = try await Self.send(client, .get, "/v1/admin/webhooks?bundle_id=\(H.appOne)", key: admin)
            #expect(listed.status == .ok)
            #expect((listed.json["endpoints"] as? [[String: Any]])?.map { $0["endpoint_id"] as? String } == [id])
            #expect(!String(describing: listed.json).contains(secret))
            #expect(
                try await Self.endpointStore(harness).signingSecrets(endpointID: id, now: Instant.systemNow()) == [
                    secret
                ])

            let rotated = try await Self.send(client, .post, "/v1/admin/webhooks/\(id)/rotate-secret", key: admin, [:])
            #expect(rotated.status == .ok)
            let newSecret = try #require(rotated.json["secret"] as? String)
            #expect(newSecret != secret)
            #expect(
                try await Self.endpointStore(harness).signingSecrets(endpointID: id, now: Instant.systemNow()) == [
                    newSecret, secret,
                ])
            // A day later the previous secret no longer signs.
            #expect(
                try await Self.endpointStore(harness).signingSecrets(
                    endpointID: id, now: Instant.systemNow().adding(milliseconds: 86_401_000))
                    == [newSecret])
            let immediate = try await Self.send(
                client, .post, "/v1/admin/webhooks/\(id)/rotate-secret", key: admin, ["expire_previous_after": "0"])
            let third = try #require(immediate.json["secret"] as? String)
            #expect(
                try await Self.endpointStore(harness).signingSecrets(endpointID: id, now: Instant.systemNow()) == [
                    third
                ])

            let paused = try await Self.send(client, .post, "/v1/admin/webhooks/\(id)/pause", key: admin)
            #expect(paused.json["state"] as? String == "paused")
            #expect(paused.json["paused_reason"] as? String == "manual")
            try await harness.pool.query(
                "UPDATE webhook_endpoints SET consecutive_failures = 9 WHERE endpoint_id = \(id)::uuid")
            let resumed = try await Self.send(client, .post, "/v1/admin/webhooks/\(id)/resume", key: admin)
            #expect(resumed.json["state"] as? String == "active")
            #expect(resumed.json["paused_reason"] == nil)
            #expect(resumed.json["consecutive_failures"] as? Int == 0)

            let removed = try await Self.send(client, .delete, "/v1/admin/webhooks/\(id)", key: admin)
            #expect(removed.json["state"] as? String == "removed")
            let again = try await Self.send(client, .post, "/v1/admin/webhooks/\(id)/pause", key: admin)
            #expect(again.status == .notFound)
            #expect(again.json.errorCode == "unknown_webhook_endpoint")
            let afterRemoval = try await Self.send(client, .get, "/v1/admin/webhooks", key: admin)
            #expect((afterRemoval.json["endpoints"] as? [Any])?.isEmpty == true)
            let history = try await Self.send(client, .get, "/v1/admin/webhooks?include_removed=true", key: admin)
            #expect((history.json["endpoints"] as? [Any])?.count == 1)
        }
    }

    @Test func testEventsDeliveriesAndReplaysQueueForOneEndpoint() async throws {
        try await H.run { harness, client in
            let admin = try await harness.keys.create(bundleID: nil, name: "ops").secret
            let added = try await Self.send(
                client, .post, "/v1/admin/webhooks", key: admin,
                [
                    "bundle_id": H.appOne, "url": "https://hooks.example.com/subledger",
                    "event_types": ["entitlement.granted", "entitlement.revoked"],
                ])
            let id = try #require((added.json["endpoint"] as? [String: Any])?["endpoint_id"] as? String)
            let other = try await Self.send(
                client, .post, "/v1/admin/webhooks", key: admin,
                ["bundle_id": H.appOne, "url": "https://other.example.com/"])
            let otherID = try #require((other.json["endpoint"] as? [String: Any])?["endpoint_id"] as? String)

            let test = try await Self.send(client, .post, "/v1/admin/webhooks/\(id)/test", key: admin)
            #expect(test.status == .accepted)
            let eventID = try #require(test.json["event_id"] as? String)
            let body = try await harness.pool.query(
                "SELECT body, cause_kind, event_type FROM webhook_events WHERE event_id = \(eventID)::uuid"
            ).single()
            let event = try #require(
                try JSONSerialization.jsonObject(with: Data(try body.decode(String.self, at: 0).utf8)) as? [String: Any]
            )
            #expect(event["type"] as? String == "webhook.test")
            #expect(event["id"] as? String == eventID)
            #expect(event["app"] as? String == H.appOne)
            #expect(try body.decode(String.self, at: 1) == "test")
            let deliveries = try await Self.send(client, .get, "/v1/admin/webhooks/\(id)/deliveries", key: admin)
            let listed = try #require(deliveries.json["deliveries"] as? [[String: Any]])
            #expect(listed.count == 1)
            #expect(listed.first?["origin"] as? String == "test")
            #expect(listed.first?["event_type"] as? String == "webhook.test")
            #expect(listed.first?["state"] as? String == "pending")
            // The test event went to that endpoint only.
            let otherDeliveries = try await Self.send(
                client, .get, "/v1/admin/webhooks/\(otherID)/deliveries", key: admin)
            #expect((otherDeliveries.json["deliveries"] as? [Any])?.isEmpty == true)

            try await Self.insertEvent(
                harness, type: "entitlement.granted", account: "alice", sequence: 1, createdAt: "2026-01-01T10:00:00Z")
            try await Self.insertEvent(
                harness, type: "entitlement.revoked", account: "alice", sequence: 2, createdAt: "2026-01-02T10:00:00Z")
            try await Self.insertEvent(
                harness, type: "credits.changed", account: "alice", sequence: 3, createdAt: "2026-01-02T11:00:00Z")
            try await Self.insertEvent(
                harness, type: "entitlement.granted", account: "bob", sequence: 1, createdAt: "2026-01-05T10:00:00Z")
            // A delivered one, with a failed attempt first, for the state filter and the attempts.
            try await harness.pool.query(
                """
                WITH d AS (SELECT delivery_id FROM webhook_deliveries WHERE endpoint_id = \(id)::uuid AND origin =
                    'event'
                           ORDER BY delivery_id LIMIT 1)
                INSERT INTO webhook_delivery_attempts (delivery_id, attempted_at, duration_ms, status, error, deliverer)
                SELECT delivery_id, now(), 12, 503, 'the receiver answered 503', 'test' FROM d
                """)
            try await harness.pool.query(
                """
                UPDATE webhook_deliveries SET state = 'delivered', attempts = 2, delivered_at = now()
                WHERE delivery_id = (SELECT min(delivery_id) FROM webhook_deliveries WHERE endpoint_id = \(id)::uuid
                    AND origin = 'event')
                """)
            let delivered = try await Self.send(
                client, .get, "/v1/admin/webhooks/\(id)/deliveries?state=delivered", key: admin)
            let deliveredList = try #require(delivered.json["deliveries"] as? [[String: Any]])
            #expect(deliveredList.count == 1)
            let attempts = try #require(deliveredList.first?["recent_attempts"] as? [[String: Any]])
            #expect(attempts.first?["status"] as? Int == 503)

            // The endpoint's filter lets through granted and revoked: three events; --type narrows it.
            let replay = try await Self.send(
                client, .post, "/v1/admin/webhooks/\(id)/replay", key: admin, ["since": "2026-01-01"])
            #expect(replay.status == .accepted)
            #expect(replay.json["queued"] as? Int == 3)
            let narrowed = try await Self.send(
                client, .post, "/v1/admin/webhooks/\(id)/replay", key: admin,
                [
                    "since": "2026-01-01T00:00:00Z", "until": "2026-01-03T00:00:00Z",
                    "event_types": ["entitlement.revoked"],
                ])
            #expect(narrowed.json["queued"] as? Int == 1)
            let replays = try await harness.pool.query(
                "SELECT count(*) FROM webhook_deliveries WHERE endpoint_id = \(id)::uuid AND origin = 'replay'"
            ).single().decode(Int64.self, at: 0)
            #expect(replays == 4)
            let tooMany = try await Self.endpointStore(harness).replay(
                endpointID: id, since: Instant(millisecondsSince1970: 0), until: nil, eventTypes: [], maximum: 2)
            #expect(tooMany == .tooMany(matching: 3, maximum: 2))

            // The admin page shows the endpoints and the failure.
            let basic = "Basic " + Data("ops:\(admin)".utf8).base64EncodedString()
            let page = try await client.executeRequest(
                uri: "/admin", method: .get, headers: [.authorization: basic], body: nil)
            let html = String(buffer: page.body)
            #expect(html.contains("<h2>Webhooks</h2>"))
            #expect(html.contains("https://hooks.example.com/subledger"))
            #expect(html.contains("the receiver answered 503"))
        }
    }

    @Test func badInputIsRefusedWithACode() async throws {
        try await H.run { harness, client in
            let admin = try await harness.keys.create(bundleID: nil, name: "ops").secret
            func add(_ object: [String: Any]) async throws -> (HTTPResponse.Status, String?) {
                let answer = try await Self.send(client, .post, "/v1/admin/webhooks", key: admin, object)
                return (answer.status, answer.json.errorCode)
            }
            let app = H.appOne
            #expect(try await add(["bundle_id": app, "url": "not a url"]) == (.badRequest, "invalid_webhook_url"))
            #expect(
                try await add(["bundle_id": app, "url": "ftp://example.com/"]) == (.badRequest, "invalid_webhook_url"))
            #expect(
                try await add(["bundle_id": app, "url": "http://example.com/hook"]) == (
                    .badRequest, "insecure_webhook_url"
                ))
            #expect(
                try await add(["bundle_id": app, "url": "https://10.1.2.3/hook"]) == (
                    .badRequest, "private_webhook_address"
                ))
            #expect(
                try await add(["bundle_id": app, "url": "https://10.1.2.3/hook", "allow_private_network": true]).0
                    == .created)
            #expect(
                try await add(["bundle_id": app, "url": "https://example.com/", "event_types": ["entitlement.nope"]])
                    == (.badRequest, "unknown_event_type"))
            #expect(
                try await add(["bundle_id": app, "url": "https://example.com/", "environments": ["staging"]])
                    == (.badRequest, "unknown_environment"))
            #expect(
                try await add(["bundle_id": "com.nobody", "url": "https://example.com/"]) == (.notFound, "unknown_app"))
            #expect(
                try await add([
                    "bundle_id": app, "url": "https://example.com/", "description": String(repeating: "x", count: 501),
                ])
                    == (.badRequest, "invalid_description"))
            let nul = try await Self.send(
                client, .post, "/v1/admin/webhooks", key: admin,
                raw: #"{"bundle_id":"com.example.one","url":"https://example.com/","description":"a\u0000b"}"#)
            #expect(nul.status == .badRequest)
            #expect(nul.json.errorCode == "invalid_text")
            let control = try await add(["bundle_id": app, "url": "https://example.com/", "description": "a\u{1}b"])
            #expect(control == (.badRequest, "invalid_text"))
            let missing = try await Self.send(
                client, .post, "/v1/admin/webhooks", key: admin, ["url": "https://example.com/"])
            #expect(missing.status == .badRequest)
            #expect(missing.json.errorCode == "malformed_json")

            let bad = try await Self.send(client, .post, "/v1/admin/webhooks/not-a-uuid/pause", key: admin)
            #expect(bad.status == .badRequest)
            #expect(bad.json.errorCode == "invalid_webhook_endpoint_id")
            let unknownID = UUID().uuidString.lowercased()
            let unknown = try await Self.send(client, .post, "/v1/admin/webhooks/\(unknownID)/test", key: admin)
            #expect(unknown.status == .notFound)
            #expect(unknown.json.errorCode == "unknown_webhook_endpoint")

            let added = try await Self.send(
                client, .post, "/v1/admin/webhooks", key: admin, ["bundle_id": app, "url": "https://example.com/"])
            let id = try #require((added.json["endpoint"] as? [String: Any])?["endpoint_id"] as? String)
            func replay(_ object: [String: Any]) async throws -> String? {
                try await Self.send(client, .post, "/v1/admin/webhooks/\(id)/replay", key: admin, object).json.errorCode
            }
            #expect(try await replay(["since": "yesterday"]) == "invalid_date")
            #expect(try await replay(["since": "2026-02-30"]) == "invalid_date")
            #expect(try await replay(["since": "2026-01-02", "until": "2026-01-01"]) == "invalid_date")
            #expect(try await replay(["since": "2026-01-01", "event_types": ["nope"]]) == "unknown_event_type")
            #expect(try await replay([:]) == "malformed_json")
            let rotation = try await Self.send(
                client, .post, "/v1/admin/webhooks/\(id)/rotate-secret", key: admin,
                ["expire_previous_after": "forever"])
            #expect(rotation.json.errorCode == "invalid_duration")
            let tooLong = try await Self.send(
                client, .post, "/v1/admin/webhooks/\(id)/rotate-secret", key: admin, ["expire_previous_after": "31d"])
            #expect(tooLong.json.errorCode == "invalid_duration")
            let state = try await Self.send(client, .get, "/v1/admin/webhooks/\(id)/deliveries?state=lost", key: admin)
            #expect(state.json.errorCode == "invalid_delivery_state")
            let limit = try await Self.send(client, .get, "/v1/admin/webhooks/\(id)/deliveries?limit=0", key: admin)
            #expect(limit.json.errorCode == "invalid_limit")
            let parameter = try await Self.send(client, .get, "/v1/admin/webhooks?colour=red", key: admin)
            #expect(parameter.json.errorCode == "unknown_parameter")
        }
    }

    @Test func secretsRotateKeyResealsEndpointSecretsStoredInPlaintextOrWithAnOlderKey() async throws {
        try await H.run { harness, _ in
            // No key configured: stored in plaintext, counted as such.
            let plain = WebhookAdmin(store: WebhookEndpointStore(pool: harness.pool, secretKeys: SecretKeyring()))
            let added = try await plain.add(
                bundleID: H.appOne, url: "https://example.com/hook", description: nil, eventTypes: [], environments: [],
                allowPrivateNetwork: false)
            #expect(added.endpoint.secretKeyID == nil)
            let before = try await SecretStore(
                pool: harness.pool, secretKeys: harness.catalog.secretKeys, logger: TestDatabase.logger
            ).status()
            #expect(before.plaintext == 1)
            let rotated = try await WebhookAdmin(store: Self.endpointStore(harness)).rotateSecret(
                added.endpoint.endpointID, expirePreviousAfter: "1h")

            let newKeys = try SecretKeyring(keys: [SecretKey.generate()] + harness.catalog.secretKeys.keys)
            let store = SecretStore(pool: harness.pool, secretKeys: newKeys, logger: TestDatabase.logger)
            let resealing = try await store.reseal()
            // The app's shared secret and the endpoint's current secret moved keys; its previous one was plaintext.
            #expect(resealing.resealed == 2)
            #expect(resealing.sealedPlaintext == 1)
            let after = try await store.status()
            #expect(after.plaintext == 0)
            #expect(after.sealedByKeyID == [newKeys.current!.id: 3])
            let secrets = try await WebhookEndpointStore(pool: harness.pool, secretKeys: newKeys)
                .signingSecrets(endpointID: added.endpoint.endpointID, now: Instant.systemNow())
            #expect(secrets == [rotated.secret, added.secret])
        }
    }
}
