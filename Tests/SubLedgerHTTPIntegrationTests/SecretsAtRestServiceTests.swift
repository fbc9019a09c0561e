import Foundation
import NIOCore
import SubLedgerStore
import Testing

/// Secrets at rest, through the running service: the app's shared secret is sealed in the table, and a V1
/// notification is stored without the password Apple echoes in it.
@Suite struct SecretsAtRestServiceTests {
    typealias H = ServiceHarness

    /// A V1 DID_RENEW of app one, authenticated by its shared secret.
    static let v1Body = """
        {
          "notification_type": "DID_RENEW",
          "password": "one-secret",
          "environment": "PROD",
          "auto_renew_status": "true",
          "auto_renew_product_id": "pro.monthly",
          "bid": "com.example.one",
          "bvrs": "1",
          "unified_receipt": {
            "status": 0,
            "environment": "Production",
            "latest_receipt": "BASE64",
            "latest_receipt_info": [
              {"product_id": "pro.monthly", "transaction_id": "9001", "original_transaction_id": "9000",
               "purchase_date_ms": "1735689600000", "expires_date_ms": "1738281600000", "quantity": "1",
               "web_order_line_item_id": "w9001"}
            ],
            "pending_renewal_info": [
              {"product_id": "pro.monthly", "auto_renew_product_id": "pro.monthly", "original_transaction_id": "9000",
               "auto_renew_status": "1"}
            ]
          }
        }
        """

    @Test func aV1NotificationIsStoredWithoutItsPasswordAndItsRetryIsStillADuplicate() async throws {
        try await H.run { harness, client in
            let sent = try await client.call(
                .post, "/v1/notifications/appstore", key: nil, raw: ByteBuffer(string: Self.v1Body))
            #expect(sent.status == .ok)
            #expect(sent.json["status"] as? String == "applied")

            let stored = try await harness.pool.query("SELECT body, version FROM notifications").single()
            let body = try stored.decode(String.self, at: 0)
            #expect(try stored.decode(String.self, at: 1) == "v1")
            #expect(!body.contains("one-secret"))
            #expect(!body.contains("password"))
            // The rest of the body is the audit trail, kept byte for byte.
            #expect(body == Self.v1Body.replacingOccurrences(of: "\n  \"password\": \"one-secret\",", with: ""))

            // Apple's retry of the same notification is recognised: one row, answered as a duplicate.
            let retry = try await client.call(
                .post, "/v1/notifications/appstore", key: nil, raw: ByteBuffer(string: Self.v1Body))
            #expect(retry.status == .ok)
            #expect(retry.json["status"] as? String == "duplicate")
            #expect(
                try await harness.pool.query("SELECT count(*) FROM notifications").single().decode(Int64.self, at: 0)
                    == 1)

            // The shared secret that authenticated it is sealed in the apps table.
            let app = try await harness.pool.query(
                "SELECT shared_secret, shared_secret_key_id, apps::text FROM apps WHERE bundle_id = \(H.appOne)"
            ).single()
            #expect(try app.decode(String?.self, at: 0) == nil)
            #expect(try app.decode(String?.self, at: 1) != nil)
            #expect(!(try app.decode(String.self, at: 2)).contains("one-secret"))
        }
    }

    @Test func aV1NotificationWithTheWrongPasswordIsRefusedAndNotStored() async throws {
        try await H.run { harness, client in
            let forged = Self.v1Body.replacingOccurrences(of: "one-secret", with: "guessed-secret")
            let sent = try await client.call(
                .post, "/v1/notifications/appstore", key: nil, raw: ByteBuffer(string: forged))
            #expect(sent.status == .unauthorized)
            #expect(
                try await harness.pool.query("SELECT count(*) FROM notifications").single().decode(Int64.self, at: 0)
                    == 0)
        }
    }
}
