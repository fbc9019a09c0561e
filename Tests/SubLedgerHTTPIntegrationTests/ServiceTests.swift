import AppStore
import Foundation
import HTTPTypes
import HummingbirdTesting
import NIOCore
import SubLedgerCore
import SubLedgerHTTP
import SubLedgerStore
import SubLedgerUseCases
import Testing

/// The HTTP API over a real loopback socket, a real PostgreSQL, and JWS signed by a chain trusted as Apple's.
@Suite struct ServiceTests {
    typealias H = ServiceHarness

    @Test func healthAnswersLiveAndReady() async throws {
        try await H.run { _, client in
            let live = try await client.call(.get, "/health/live", key: nil)
            #expect(live.status == .ok)
            #expect(live.json["status"] as? String == "ok")
            #expect((live.json["checks"] as? [String: String])?.isEmpty == true)
            #expect(live.headers[.contentType] == "application/json; charset=utf-8")
            let ready = try await client.call(.get, "/health/ready", key: nil)
            #expect(ready.status == .ok)
            #expect((ready.json["checks"] as? [String: String])?["schema"] == "ok")
        }
    }

    /// The documents' flow for StoreKit 2: order → purchase with the order's token → entitlement.
    @Test func orderThenSignedTransactionGrantsTheEntitlement() async throws {
        try await H.run { harness, client in
            let order = try await client.call(
                .post, "/v1/orders", key: harness.keyOne, json: ["account_id": "alice", "product_id": "pro.monthly"])
            #expect(order.status == .created)
            let token = try #require(order.json["app_account_token"] as? String)

            let signed = try harness.signedTransaction(id: "1000", purchasedOnDay: 0, expiresOnDay: 30, token: token)
            let submitted = try await client.call(
                .post, "/v1/transactions", key: harness.keyOne,
                json: ["account_id": "alice", "signed_transaction": signed, "order_id": token])
            #expect(submitted.status == .ok)
            #expect(submitted.json.results == ["1000": "applied"])
            #expect(submitted.json.entitlementIDs == ["pro"])

            let entitlements = try await client.call(.get, "/v1/accounts/alice/entitlements", key: harness.keyOne)
            #expect(entitlements.json.entitlementIDs == ["pro"])
            #expect(entitlements.json.firstExpiry == "2025-01-31T00:00:00.000Z")
            let app = try #require(try await harness.catalog.app(bundleID: H.appOne))
            let fulfilled = try #require(try await harness.store.order(try OrderID(token), app: app))
            #expect(fulfilled.state == .fulfilled)

            let subscriptions = try await client.call(.get, "/v1/accounts/alice/subscriptions", key: harness.keyOne)
            let first = (subscriptions.json["subscriptions"] as? [[String: Any]])?.first
            #expect(first?["original_transaction_id"] as? String == "1000")
            #expect(first?["state"] as? String == "active")
            let transactions = try await client.call(.get, "/v1/accounts/alice/transactions", key: harness.keyOne)
            #expect(
                (transactions.json["transactions"] as? [[String: Any]])?.map { $0["transaction_id"] as? String } == [
                    "1000"
                ])
        }
    }

    /// A renewal arriving by notification extends the owner's entitlement; the same notification again is a
    /// 200 that changes nothing; a refund notification ends access.
    @Test func notificationsRenewAndRefundAndReplaysChangeNothing() async throws {
        try await H.run { harness, client in
            let purchase = try harness.signedTransaction(id: "2000", purchasedOnDay: 0, expiresOnDay: 30)
            _ = try await client.call(
                .post, "/v1/transactions", key: harness.keyOne,
                json: ["account_id": "bob", "signed_transaction": purchase])

            harness.clock.set(H.day(30))
            let renewal = try harness.notificationBody(
                type: "DID_RENEW",
                transaction: try harness.signedTransaction(
                    id: "2001", original: "2000", purchasedOnDay: 30, expiresOnDay: 60),
                renewal: try harness.signedRenewal(original: "2000", willAutoRenew: true, onDay: 30), onDay: 30)
            let first = try await client.call(.post, "/v1/notifications/appstore", key: nil, raw: renewal)
            #expect(first.status == .ok)
            #expect(first.json["status"] as? String == "applied")
            let extended = try await client.call(.get, "/v1/accounts/bob/entitlements", key: harness.keyOne)
            #expect(extended.json.firstExpiry == "2025-03-02T00:00:00.000Z")

            let entriesBefore = try await harness.pool.query("SELECT count(*) FROM ledger_entries").single().decode(
                Int64.self, at: 0)
            let replay = try await client.call(.post, "/v1/notifications/appstore", key: nil, raw: renewal)
            #expect(replay.status == .ok)
            #expect(replay.json["status"] as? String == "duplicate")
            let entriesAfter = try await harness.pool.query("SELECT count(*) FROM ledger_entries").single().decode(
                Int64.self, at: 0)
            #expect(entriesAfter == entriesBefore)

            harness.clock.set(H.day(40))
            let refund = try harness.notificationBody(
                type: "REFUND",
                transaction: try harness.signedTransaction(
                    id: "2001", original: "2000", purchasedOnDay: 30, expiresOnDay: 60, revokedOnDay: 40,
                    signedOnDay: 40),
                onDay: 40)
            #expect(try await client.call(.post, "/v1/notifications/appstore", key: nil, raw: refund).status == .ok)
            let revoked = try await client.call(.get, "/v1/accounts/bob/entitlements", key: harness.keyOne)
            #expect(revoked.json.entitlementIDs.isEmpty)
            let before = try await client.call(
                .get, "/v1/accounts/bob/entitlements?at=2025-02-05T00:00:00Z", key: harness.keyOne)
            #expect(before.json.entitlementIDs == ["pro"])
        }
    }

    @Test func keysAreRequiredScopedToOneAppAndRevocable() async throws {
        try await H.run { harness, client in
            let signed = try harness.signedTransaction(id: "3000", purchasedOnDay: 0, expiresOnDay: 30)
            _ = try await client.call(
                .post, "/v1/transactions", key: harness.keyOne,
                json: ["account_id": "carol", "signed_transaction": signed])

            #expect(
                try await client.call(.get, "/v1/accounts/carol/entitlements", key: nil).json.errorCode
                    == "unauthorized")
            let wrong = try await client.call(.get, "/v1/accounts/carol/entitlements", key: "sl_app_not-a-key")
            #expect(wrong.status == .unauthorized)
            #expect(wrong.json.errorCode == "invalid_api_key")
            // App two's key sees app two's carol, who has nothing; it cannot read app one's carol.
            let other = try await client.call(.get, "/v1/accounts/carol/entitlements", key: harness.keyTwo)
            #expect(other.status == .ok)
            #expect(other.json.entitlementIDs.isEmpty)
            // App two's key cannot submit app one's transactions either.
            let foreign = try await client.call(
                .post, "/v1/transactions", key: harness.keyTwo,
                json: ["account_id": "carol", "signed_transaction": signed])
            #expect(foreign.status == .unprocessableContent)

            let listing = try await harness.keys.list()
            let one = try #require(listing.first { $0.bundleID == H.appOne })
            #expect(!one.prefix.isEmpty && !harness.keyOne.hasPrefix(one.prefix + "x"))
            #expect(try await harness.keys.revoke(keyID: one.keyID))
            // Every process drops its cached keys on NOTIFY; wait for this one's listener to do so.
            var status = HTTPResponse.Status.ok
            for _ in 0..<300 where status != .unauthorized {
                status = try await client.call(.get, "/v1/accounts/carol/entitlements", key: harness.keyOne).status
                if status != .unauthorized { try await Task.sleep(for: .milliseconds(100)) }
            }
            #expect(status == .unauthorized)
        }
    }

    @Test func badInputGetsAClearErrorAndNeverA500() async throws {
        try await H.run { harness, client in
            let key = harness.keyOne
            func expectError(
                _ method: HTTPRequest.Method, _ uri: String, key: String? = nil, json: [String: String]? = nil,
                raw: ByteBuffer? = nil, _ status: HTTPResponse.Status, _ code: String,
                sourceLocation: SourceLocation = #_sourceLocation
            ) async throws {
                let answer = try await client.call(method, uri, key: key, json: json, raw: raw)
                #expect(answer.status == status, sourceLocation: sourceLocation)
                #expect(answer.json.errorCode == code, sourceLocation: sourceLocation)
                #expect(
                    (answer.json["error"] as? [String: Any])?["message"] as? String != nil,
                    sourceLocation: sourceLocation)
            }
            try await expectError(
                .post, "/v1/orders", key: key, raw: ByteBuffer(string: "{not json"), .badRequest, "malformed_json")
            try await expectError(
                .post, "/v1/orders", key: key, json: ["account_id": "alice"], .badRequest, "malformed_json")
            try await expectError(
                .post, "/v1/orders", key: key, json: ["account_id": "bad id!", "product_id": "pro.monthly"],
                .badRequest, "invalid_account_id")
            try await expectError(
                .post, "/v1/orders", key: key, json: ["account_id": "alice", "product_id": "nope"],
                .unprocessableContent, "unknown_product")
            try await expectError(
                .post, "/v1/receipts", key: key, json: ["account_id": "alice", "receipt_data": "%%%not base64"],
                .badRequest, "malformed_receipt")
            try await expectError(
                .post, "/v1/transactions", key: key, json: ["account_id": "alice", "signed_transaction": "a.b"],
                .badRequest, "malformed_jws")
            try await expectError(
                .post, "/v1/transactions", key: key, json: ["account_id": "alice", "signed_transaction": "a.b.c"],
                .badRequest, "malformed_jws")
            try await expectError(
                .post, "/v1/receipts", key: key,
                json: ["account_id": "alice", "receipt_data": "AAAA", "order_id": "nope"], .notFound, "unknown_order")
            try await expectError(
                .get, "/v1/accounts/alice/entitlements?at=yesterday", key: key, .badRequest, "invalid_time")
            try await expectError(.get, "/v1/nowhere", key: key, .notFound, "not_found")
            let huge = ByteBuffer(repeating: UInt8(ascii: "a"), count: 1_100_000)
            try await expectError(.post, "/v1/orders", key: key, raw: huge, .contentTooLarge, "body_too_large")

            // A forged transaction: the payload says another product than the one that was signed.
            let signed = try harness.signedTransaction(id: "4000", purchasedOnDay: 0, expiresOnDay: 30)
            var parts = signed.split(separator: ".").map(String.init)
            let forgedPayload = try harness.signedTransaction(
                id: "4000", product: "coins.100", purchasedOnDay: 0, expiresOnDay: nil
            ).split(separator: ".")[1]
            parts[1] = String(forgedPayload)
            try await expectError(
                .post, "/v1/transactions", key: key,
                json: ["account_id": "alice", "signed_transaction": parts.joined(separator: ".")],
                .unprocessableContent, "invalid_signed_transaction")
            // The forged input was stored (nothing received is lost) and judged invalid.
            let statuses = try await harness.pool.query("SELECT status FROM receipts ORDER BY receipt_id")
            #expect(try statuses.map { try $0.decode(String.self, at: 0) }.last == "invalid")

            // Notifications: not JSON, a forged signature, an unknown app.
            try await expectError(
                .post, "/v1/notifications/appstore", raw: ByteBuffer(string: "<html>"), .badRequest, "malformed_json")
            let genuine = try harness.notificationBody(type: "TEST", transaction: nil, onDay: 0)
            var text = String(buffer: genuine)
            let signature = text.index(text.endIndex, offsetBy: -4)
            text.replaceSubrange(signature...signature, with: text[signature] == "x" ? "y" : "x")
            try await expectError(
                .post, "/v1/notifications/appstore", raw: ByteBuffer(string: text), .unauthorized, "invalid_signature")
        }
    }

    /// Apple down: the receipt is stored before Apple is called, the answer is 503 with Retry-After, and the
    /// stored receipt waits in `retry` for the renewal job.
    @Test func appleUnavailableAnswers503AndKeepsTheReceipt() async throws {
        try await H.run { harness, client in
            let answer = try await client.call(
                .post, "/v1/receipts", key: harness.keyOne,
                json: ["account_id": "dave", "receipt_data": Data("a receipt".utf8).base64EncodedString()])
            #expect(answer.status == .serviceUnavailable)
            #expect(answer.json.errorCode == "apple_unavailable")
            #expect(answer.headers[.retryAfter] == "30")
            let stored = try await harness.pool.query(
                "SELECT status, account_id, next_attempt_at IS NOT NULL FROM receipts"
            ).single()
            #expect(try stored.decode(String.self, at: 0) == "retry")
            #expect(try stored.decode(String.self, at: 1) == "dave")
            #expect(try stored.decode(Bool.self, at: 2))
        }
    }
}
