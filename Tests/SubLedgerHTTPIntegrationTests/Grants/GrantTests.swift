import AppStore
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import PostgresLibPQ
import SubLedgerCore
import SubLedgerHTTP
import SubLedgerTestSupport
import SubLedgerUseCases
import Testing

/// Granted entitlements over HTTP against a real PostgreSQL: a grant shows in the entitlement read as `granted`,
/// combines with a store purchase (the later end wins), ends at its revocation, is idempotent by
/// `Idempotency-Key`, is a hash-chained ledger entry, is announced by webhook, and is never revenue.
@Suite struct GrantTests {
    typealias H = ServiceHarness

    /// A call with a JSON body of any values and extra headers.
    static func send(
        _ client: some TestClientProtocol, _ method: HTTPRequest.Method, _ uri: String, key: String,
        _ json: [String: Any]? = nil, idempotencyKey: String? = nil
    ) async throws -> (status: HTTPResponse.Status, json: [String: Any]) {
        var headers: HTTPFields = [.contentType: "application/json", .authorization: "Bearer \(key)"]
        if let idempotencyKey { headers[HTTPField.Name("Idempotency-Key")!] = idempotencyKey }
        let body = try json.map { ByteBuffer(bytes: try JSONSerialization.data(withJSONObject: $0)) }
        let response = try await client.executeRequest(uri: uri, method: method, headers: headers, body: body)
        return (response.status, JSONCall.parse(response.body))
    }

    static func entitlements(_ json: [String: Any]) -> [[String: Any]] {
        json["entitlements"] as? [[String: Any]] ?? []
    }

    /// The webhook clock of the service, on the test's clock.
    static func clock(_ harness: H) -> WebhookClock {
        WebhookClock(store: harness.store, logger: TestDatabase.logger, now: { harness.clock.now })
    }

    static func count(_ query: PostgresQuery, _ harness: H) async throws -> Int64 {
        try await harness.pool.query(query).single().decode(Int64.self, at: 0)
    }

    @Test func grantShowsAsGrantedIsIdempotentAndEndsAtItsRevocation() async throws {
        try await H.run { harness, client in
            let admin = try await harness.keys.create(bundleID: nil, name: "support-desk").secret
            harness.clock.set(H.day(10))
            let request: [String: Any] = [
                "bundle_id": H.appOne, "entitlement_id": "pro", "duration": "30d",
                "reason": "payment failed during the outage",
            ]
            let granted = try await Self.send(
                client, .post, "/v1/accounts/alice/grants", key: admin, request, idempotencyKey: "ticket-123")
            #expect(granted.status == .created)
            let grantID = try #require(granted.json["grant_id"] as? String)
            #expect(granted.json["granted_by"] as? String == "support-desk")
            #expect(granted.json["ends_at"] as? String == RFC3339.format(H.day(40)))

            // The same key again: the same grant, and still one ledger entry.
            let repeated = try await Self.send(
                client, .post, "/v1/accounts/alice/grants", key: admin, request, idempotencyKey: "ticket-123")
            #expect(repeated.status == .ok)
            #expect(repeated.json["grant_id"] as? String == grantID)
            let chain = "grant:\(grantID)"
            #expect(
                try await Self.count(
                    "SELECT count(*) FROM ledger_entries WHERE original_transaction_id = \(chain)", harness) == 1)

            let read = try await client.call(.get, "/v1/accounts/alice/entitlements", key: harness.keyOne)
            let entitlement = try #require(Self.entitlements(read.json).first)
            #expect(entitlement["entitlement_id"] as? String == "pro")
            #expect(entitlement["store"] as? String == "granted")
            #expect(entitlement["expires_at"] as? String == RFC3339.format(H.day(40)))

            let listed = try await Self.send(
                client, .get, "/v1/accounts/alice/grants?bundle_id=\(H.appOne)", key: admin)
            #expect(listed.status == .ok)
            #expect((listed.json["grants"] as? [[String: Any]])?.compactMap { $0["grant_id"] as? String } == [grantID])

            harness.clock.set(H.day(12))
            let revoked = try await Self.send(
                client, .delete, "/v1/accounts/alice/grants/\(grantID)?bundle_id=\(H.appOne)", key: admin)
            #expect(revoked.status == .ok)
            #expect(revoked.json["revoked_at"] as? String == RFC3339.format(H.day(12)))
            #expect(revoked.json["revoked_by"] as? String == "support-desk")
            let after = try await client.call(.get, "/v1/accounts/alice/entitlements", key: harness.keyOne)
            #expect(Self.entitlements(after.json).isEmpty)
            let before = try await client.call(
                .get, "/v1/accounts/alice/entitlements?at=\(RFC3339.format(H.day(11)))", key: harness.keyOne)
            #expect(before.json.entitlementIDs == ["pro"])

            // Revoking again changes nothing: the first revocation stands, no second entry.
            harness.clock.set(H.day(13))
            let again = try await Self.send(
                client, .delete, "/v1/accounts/alice/grants/\(grantID)?bundle_id=\(H.appOne)", key: admin)
            #expect(again.status == .ok)
            #expect(again.json["revoked_at"] as? String == RFC3339.format(H.day(12)))
            #expect(
                try await Self.count(
                    "SELECT count(*) FROM ledger_entries WHERE original_transaction_id = \(chain)", harness) == 2)

            // The events a purchase and a refund cause, one each, naming the grant as their store.
            let events = try await harness.pool.query(
                "SELECT event_type, body FROM webhook_events WHERE account_id = 'alice' ORDER BY account_sequence")
            let types = try events.map { try $0.decode(String.self, at: 0) }
            #expect(types == ["entitlement.granted", "entitlement.revoked"])
            let first = try #require(events.first)
            let body = try #require(
                try JSONSerialization.jsonObject(with: Data(try first.decode(String.self, at: 1).utf8))
                    as? [String: Any])
            #expect(body["store"] as? String == "granted")
            #expect((body["data"] as? [String: Any])?["grant_id"] as? String == grantID)
            #expect((body["entitlements"] as? [[String: Any]])?.first?["store"] as? String == "granted")

            // The admin page's customer view shows the grant and its revocation in the account's timeline.
            let page = try await client.executeRequest(
                uri: "/admin?q=alice", method: .get, headers: [.authorization: "Bearer \(admin)"], body: nil)
            #expect(page.status == .ok)
            let html = String(buffer: page.body)
            #expect(html.contains("manual_grant"))
            #expect(html.contains("manual_revoke"))
            #expect(html.contains("Granted entitlements"))
            #expect(html.contains("payment failed during the outage"))
            let lookup = try await client.call(
                .get, "/v1/admin/lookup/account/alice?bundle_id=\(H.appOne)", key: admin)
            #expect(lookup.status == .ok)
            let looked = lookup.json["grants"] as? [[String: Any]] ?? []
            #expect(looked.map { $0["grant_id"] as? String } == [grantID])
            #expect(looked.first?["revoked_by"] as? String == "support-desk")

            // The granted end passes: a grant revoked before it is not announced as expired.
            harness.clock.set(H.day(41))
            #expect(try await Self.clock(harness).runPass() == 0)
            #expect(try await Self.count("SELECT count(*) FROM webhook_clock_moments", harness) == 0)

            // The grant and its revocation are links of the hash chain, which verifies.
            let verification = try await harness.store.verifyLedgerChain(appID: nil, since: nil)
            #expect(verification.isIntact)
            #expect(
                try await Self.count(
                    "SELECT count(*) FROM ledger_chain_links WHERE original_transaction_id = \(chain)", harness) == 2)
        }
    }

    @Test func grantAndPurchaseOfOneEntitlementCombineTheLaterEndWinsAndNoRevenueIsAdded() async throws {
        try await H.run { harness, client in
            let admin = try await harness.keys.create(bundleID: nil, name: "ops").secret
            harness.clock.set(H.day(1))
            let purchase = try await client.call(
                .post, "/v1/transactions", key: harness.keyOne,
                json: [
                    "account_id": "bob",
                    "signed_transaction": try harness.signer.sign(
                        JWSTransactionDecodedPayload(
                            originalTransactionID: "7001", transactionID: "7001", webOrderLineItemID: "w7001",
                            bundleID: H.appOne, productID: "pro.monthly", subscriptionGroupIdentifier: "g1",
                            purchaseDate: H.day(1).millisecondsSince1970,
                            originalPurchaseDate: H.day(1).millisecondsSince1970,
                            expiresDate: H.day(31).millisecondsSince1970, quantity: 1,
                            rawType: "Auto-Renewable Subscription", rawInAppOwnershipType: "PURCHASED",
                            signedDate: H.day(1).millisecondsSince1970, rawEnvironment: "Production",
                            storefront: "USA", currency: "USD", price: 9_990)),
                ])
            #expect(purchase.status == .ok)
            try await harness.projectReports()
            let revenueQuery = "/v1/admin/reports/revenue?from=2025-01-01&to=2025-03-01&by=month&app=\(H.appOne)"
            let revenueBefore = try await client.call(.get, revenueQuery, key: admin)
            #expect(revenueBefore.status == .ok)

            harness.clock.set(H.day(5))
            let shorter = try await Self.send(
                client, .post, "/v1/accounts/bob/grants", key: admin,
                ["bundle_id": H.appOne, "entitlement_id": "pro", "duration": "10d", "reason": "reviewer"])
            #expect(shorter.status == .created)
            let storeWins = try await client.call(.get, "/v1/accounts/bob/entitlements", key: harness.keyOne)
            let sold = try #require(Self.entitlements(storeWins.json).first)
            #expect(sold["store"] == nil, "the App Store's later end wins")
            #expect(sold["expires_at"] as? String == RFC3339.format(H.day(31)))

            let longer = try await Self.send(
                client, .post, "/v1/accounts/bob/grants", key: admin,
                [
                    "bundle_id": H.appOne, "entitlement_id": "pro", "until": RFC3339.format(H.day(60)),
                    "reason": "partner year",
                ])
            #expect(longer.status == .created)
            let grantWins = try await client.call(.get, "/v1/accounts/bob/entitlements", key: harness.keyOne)
            #expect(Self.entitlements(grantWins.json).count == 1)
            let given = try #require(Self.entitlements(grantWins.json).first)
            #expect(given["store"] as? String == "granted")
            #expect(given["expires_at"] as? String == RFC3339.format(H.day(60)))

            // The shorter grant's end is announced by the clock, as a store period's end is.
            let shorterID = try #require(shorter.json["grant_id"] as? String)
            harness.clock.set(H.day(16))
            #expect(try await Self.clock(harness).runPass() == 1)
            let expired = try await harness.pool.query(
                "SELECT body FROM webhook_events WHERE account_id = 'bob' AND event_type = 'entitlement.expired'")
            let expiredRow = try #require(expired.first)
            let expiredText = try expiredRow.decode(String.self, at: 0)
            let expiredBody = try #require(
                try JSONSerialization.jsonObject(with: Data(expiredText.utf8)) as? [String: Any])
            let expiredData = expiredBody["data"] as? [String: Any] ?? [:]
            #expect(expiredData["grant_id"] as? String == shorterID)
            #expect(expiredData["reason"] as? String == "grant_ended")
            #expect(expiredData["expired_at"] as? String == RFC3339.format(H.day(15)))
            #expect(expiredBody["store"] as? String == "granted")

            try await harness.projectReports()
            let revenueAfter = try await client.call(.get, revenueQuery, key: admin)
            func canonical(_ value: Any?) throws -> String {
                String(
                    decoding: try JSONSerialization.data(
                        withJSONObject: ["totals": value ?? NSNull()], options: [.sortedKeys]),
                    as: UTF8.self)
            }
            #expect((revenueBefore.json["totals"] as? [Any])?.isEmpty == false)
            #expect(try canonical(revenueAfter.json["totals"]) == canonical(revenueBefore.json["totals"]))
            #expect(try await harness.store.verifyLedgerChain(appID: nil, since: nil).isIntact)

            // The summary counts the grants apart from the chains: bob's purchase is one chain, his two grants one
            // account holding a grant of pro.
            let summary = try await client.call(.get, "/v1/admin/reports/summary?app=\(H.appOne)", key: admin)
            #expect(summary.status == .ok)
            let granted = summary.json["granted"] as? [[String: Any]] ?? []
            #expect(granted.count == 1)
            #expect(granted.first?["accounts"] as? Int == 1)
            #expect(granted.first?["entitlement_id"] as? String == "pro")
            #expect((summary.json["totals"] as? [String: Any])?["total"] as? Int == 1)
        }
    }

    @Test func badInputsAreRefusedWithTheirCodes() async throws {
        try await H.run { harness, client in
            let admin = try await harness.keys.create(bundleID: nil, name: "ops").secret
            harness.clock.set(H.day(10))
            func grant(_ fields: [String: Any], idempotencyKey: String? = nil) async throws -> (
                status: HTTPResponse.Status, json: [String: Any]
            ) {
                var body: [String: Any] = [
                    "bundle_id": H.appOne, "entitlement_id": "pro", "duration": "30d", "reason": "support",
                ]
                for (key, value) in fields {
                    if value is NSNull { body.removeValue(forKey: key) } else { body[key] = value }
                }
                return try await Self.send(
                    client, .post, "/v1/accounts/carol/grants", key: admin, body, idempotencyKey: idempotencyKey)
            }
            let cases: [([String: Any], HTTPResponse.Status, String)] = [
                (["duration": NSNull(), "until": RFC3339.format(H.day(9))], .badRequest, "grant_ends_in_past"),
                (["duration": NSNull(), "until": "tomorrow"], .badRequest, "grant_ends_in_past"),
                (["entitlement_id": "gold"], .badRequest, "unknown_entitlement"),
                (["entitlement_id": NSNull()], .badRequest, "unknown_entitlement"),
                (["duration": "0d"], .badRequest, "invalid_grant_duration"),
                (["duration": "-3d"], .badRequest, "invalid_grant_duration"),
                (["duration": "36501d"], .badRequest, "invalid_grant_duration"),
                (["duration": "30 days"], .badRequest, "invalid_grant_duration"),
                (["until": RFC3339.format(H.day(60))], .badRequest, "invalid_grant_duration"),
                (["duration": NSNull()], .badRequest, "invalid_grant_duration"),
                (["reason": String(repeating: "x", count: 501)], .badRequest, "invalid_grant_reason"),
                (["reason": NSNull()], .badRequest, "invalid_grant_reason"),
                (["environment": "Xcode"], .badRequest, "invalid_grant_environment"),
                (["bundle_id": NSNull()], .badRequest, "bundle_id_required"),
                (["bundle_id": "com.example.none"], .notFound, "unknown_app"),
            ]
            for (fields, status, code) in cases {
                let answer = try await grant(fields)
                #expect(answer.status == status, "\(fields)")
                #expect(answer.json.errorCode == code, "\(fields)")
            }
            #expect(
                try await grant([:], idempotencyKey: String(repeating: "k", count: 201)).json.errorCode
                    == "invalid_idempotency_key")
            #expect(try await grant([:], idempotencyKey: "same").status == .created)
            let reused = try await grant(["environment": "Sandbox"], idempotencyKey: "same")
            #expect(reused.status == .conflict)
            #expect(reused.json.errorCode == "idempotency_key_reused")

            let unknown = try await Self.send(
                client, .delete, "/v1/accounts/carol/grants/\(UUID().uuidString)?bundle_id=\(H.appOne)", key: admin)
            #expect(unknown.status == .notFound)
            #expect(unknown.json.errorCode == "grant_not_found")
            let malformed = try await Self.send(
                client, .delete, "/v1/accounts/carol/grants/nope?bundle_id=\(H.appOne)", key: admin)
            #expect(malformed.status == .badRequest)
            #expect(malformed.json.errorCode == "invalid_grant_id")

            // An app key may read entitlements, not grant them.
            let appKey = try await Self.send(
                client, .post, "/v1/accounts/carol/grants", key: harness.keyOne,
                ["bundle_id": H.appOne, "entitlement_id": "pro", "duration": "30d", "reason": "x"])
            #expect(appKey.status == .forbidden)
            // Only the one accepted grant was written.
            #expect(
                try await Self.count("SELECT count(*) FROM entitlement_grants WHERE account_id = 'carol'", harness) == 1
            )
        }
    }
}
