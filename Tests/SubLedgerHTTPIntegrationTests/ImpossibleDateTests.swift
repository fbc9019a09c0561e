import AppStore
import Foundation
import NIOCore
import PostgresLibPQ
import SubLedgerCore
import Testing

private typealias H = ServiceHarness

/// End to end: a date near the limits of `Int64` from any route is a 4xx with the error
/// shape, the ledger is unchanged, and the process keeps answering.
@Suite(.serialized) struct ImpossibleDateTests {
    static func v1Body(expiresDateMS: String, extra: String = "") -> ByteBuffer {
        ByteBuffer(
            string: """
                {"notification_type": "DID_RENEW", "password": "one-secret", "environment": "PROD",
                 "bid": "\(H.appOne)", "bvrs": "1",
                 "unified_receipt": {"status": 0, "environment": "Production", "latest_receipt": "BASE64",
                   "latest_receipt_info": [{"product_id": "pro.monthly", "transaction_id": "9000",
                     "original_transaction_id": "9000", "purchase_date_ms": "\(H.day(0).millisecondsSince1970)",
                     "expires_date_ms": \(expiresDateMS)\(extra)}],
                   "pending_renewal_info": []}}
                """)
    }

    static func rowCount(_ harness: ServiceHarness, _ table: PostgresQuery) async throws -> Int64 {
        try await harness.pool.query("SELECT count(*) FROM \(table)").single().decode(Int64.self, at: 0)
    }

    @Test func v1NotificationWithAnInt64MaxExpiryIsRefusedAndTheServiceStaysUp() async throws {
        try await H.run { harness, client in
            for expiry in [#""9223372036854775807""#, "9223372036854775807", "-9223372036854775808", "1e300"] {
                let answer = try await client.call(
                    .post, "/v1/notifications/appstore", key: nil, raw: Self.v1Body(expiresDateMS: expiry))
                #expect((400..<500).contains(answer.status.code), "\(expiry): \(answer.status)")
                // The sender proved the shared secret, so the answer may say what is wrong (never the value).
                #expect(answer.json.errorCode == "invalid_notification_payload", "\(expiry)")
                #expect(answer.json.errorMessage?.contains("expires_date_ms") == true, "\(expiry)")
            }
            // A revocation reason beyond the ledger's integer column is refused, not a failed write (500).
            let revoked = #", "cancellation_date_ms": "\#(H.day(1).millisecondsSince1970)""#
            let hugeReason = try await client.call(
                .post, "/v1/notifications/appstore", key: nil,
                raw: Self.v1Body(
                    expiresDateMS: "\"\(H.day(30).millisecondsSince1970)\"",
                    extra: revoked + #", "cancellation_reason": "9999999999""#))
            #expect((400..<500).contains(hugeReason.status.code), "\(hugeReason.status)")
            #expect(try await client.call(.get, "/health/live", key: nil).status == .ok)
            #expect(try await Self.rowCount(harness, "notifications") == 0)
            #expect(try await Self.rowCount(harness, "transactions") == 0)

            // The same body with a real date is applied: the route still works after the refusals.
            let expiry = "\"\(H.day(30).millisecondsSince1970)\""
            let valid = try await client.call(
                .post, "/v1/notifications/appstore", key: nil, raw: Self.v1Body(expiresDateMS: expiry))
            #expect(valid.status == .ok)
            #expect(try await Self.rowCount(harness, "transactions") == 1)
        }
    }

    @Test func signedDataWithAnInt64MaxExpiryIsRefusedAndTheServiceStaysUp() async throws {
        try await H.run { harness, client in
            var payload = JWSTransactionDecodedPayload(
                originalTransactionID: "9100", transactionID: "9100", bundleID: H.appOne, productID: "pro.monthly",
                subscriptionGroupIdentifier: "g1", purchaseDate: H.day(0).millisecondsSince1970,
                expiresDate: Int64.max, quantity: 1, rawType: "Auto-Renewable Subscription",
                rawInAppOwnershipType: "PURCHASED", signedDate: H.day(0).millisecondsSince1970,
                rawEnvironment: "Production")
            let submitted = try await client.call(
                .post, "/v1/transactions", key: harness.keyOne,
                json: ["account_id": "ivy", "signed_transaction": try harness.signer.sign(payload)])
            #expect((400..<500).contains(submitted.status.code), "\(submitted.status)")
            #expect(submitted.json.errorCode != nil)

            payload.expiresDate = H.day(30).millisecondsSince1970
            payload.revocationDate = Int64.max
            let notification = try harness.notificationBody(
                type: "REFUND", transaction: try harness.signer.sign(payload), onDay: 1)
            let refused = try await client.call(.post, "/v1/notifications/appstore", key: nil, raw: notification)
            #expect((400..<500).contains(refused.status.code), "\(refused.status)")

            #expect(try await client.call(.get, "/health/live", key: nil).status == .ok)
            #expect(try await Self.rowCount(harness, "transactions") == 0)
            #expect(try await Self.rowCount(harness, "ledger_entries") == 0)
        }
    }
}
