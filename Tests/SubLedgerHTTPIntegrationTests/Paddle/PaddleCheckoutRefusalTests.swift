import Foundation
import HTTPTypes
import Testing

/// `POST /v1/checkout/paddle` refuses what Paddle could never take before it asks Paddle anything: a price that is
/// not a Paddle price id (`pri_` and lowercase letters and digits), a customer that is not a customer id (`ctm_…`),
/// and the fields of other stores' checkouts.
@Suite struct PaddleCheckoutRefusalTests {
    @Test(arguments: [
        (["price": "price_1Nabc"], "invalid_value", "price must be a Paddle id starting with pri_"),
        (["price": "pri_UPPER"], "invalid_value", "price must be a Paddle id starting with pri_"),
        (
            ["price": "pri_01h8b", "customer": "cus_1"], "invalid_value",
            "customer must be a Paddle id starting with ctm_"
        ),
        (["price": "pri_01h8b", "success_url": "https://example.com"], "unknown_field", "unknown field 'success_url'"),
        ([:], "malformed_json", "missing field 'price'"),
    ])
    func aRequestPaddleCouldNeverTakeIsRefused(fields: [String: String], code: String, message: String) async throws {
        try await ServiceHarness.run(stores: EveryStore.besideTheAppStore) { harness, client in
            let body = fields.merging(["account_id": "alice", "product_id": "pro_01h8b"]) { given, _ in given }
            let answer = try await client.call(.post, "/v1/checkout/paddle", key: harness.keyOne, json: body)
            #expect(answer.status == .badRequest, "\(answer.json)")
            #expect(answer.json.errorCode == code, "\(answer.json)")
            let text = (answer.json["error"] as? [String: Any])?["message"] as? String ?? ""
            #expect(text.hasPrefix(message), "\(text)")
        }
    }
}
