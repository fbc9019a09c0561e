import AppStore
import AppStoreSimulator
import Foundation
import SubLedgerCore
import Testing

/// The customer's reason for a refund request (`consumptionRequestReason` of `CONSUMPTION_REQUEST`), from
/// appstore-sim through SubLedger: kept on the notification and its consumption request, carried by
/// `refund.requested`, listed by the consumption report; a request without one states none.
@Suite struct ConsumptionRequestReasonTests {
    typealias E = EndToEndHarness
    typealias C = ConsumptionEndToEndTests

    @Test func theReasonAppleStatesReachesTheRequestTheWebhookAndTheReport() async throws {
        try await E.run { e in
            let ivy = try await C.buy(e, "ivy")
            let ned = try await C.buy(e, "ned")
            let asked = try await e.control.requestConsumption(ivy, reason: "UNINTENDED_PURCHASE")
            _ = try await e.control.requestConsumption(ned)
            await #expect(throws: SimulatorError.self) {
                _ = try await e.control.requestConsumption(ned, reason: "changed my mind")
            }

            // What Apple signed carries it.
            let uuid = try #require(asked.notificationUUIDs.first)
            let signed = try #require(e.control.notifications().first { $0.notificationUUID == uuid }).signedPayload
            let payload = try JSONDecoder().decode(
                ResponseBodyV2DecodedPayload.self, from: try CompactJWS(signed).payload)
            #expect(payload.data?.rawConsumptionRequestReason == "UNINTENDED_PURCHASE")

            var reasons: [String: String?] = [:]
            for row in try await e.service.pool.query("SELECT transaction_id, reason FROM consumption_requests") {
                reasons[try row.decode(String.self, at: 0)] = try row.decode(String?.self, at: 1)
            }
            #expect(reasons == [ivy: "UNINTENDED_PURCHASE", ned: nil])
            let stored = try await e.service.pool.query(
                "SELECT consumption_request_reason FROM notifications WHERE notification_id = \(uuid)"
            ).single().decode(String?.self, at: 0)
            #expect(stored == "UNINTENDED_PURCHASE")

            let requested = try await WebhookEventTests.events(e).filter { $0.type == "refund.requested" }
            #expect(requested.count == 2)
            #expect(requested.first { $0.account == "ivy" }?.data["reason"] as? String == "UNINTENDED_PURCHASE")
            #expect(requested.first { $0.account == "ned" }?.data["reason"] as? String == nil)

            let rows = try #require((try await C.report(e))["rows"] as? [[String: Any]])
            #expect(
                rows.first { $0["transaction_id"] as? String == ivy }?["reason"] as? String == "UNINTENDED_PURCHASE")
            #expect(rows.first { $0["transaction_id"] as? String == ned }?["reason"] as? String == nil)
        }
    }
}
