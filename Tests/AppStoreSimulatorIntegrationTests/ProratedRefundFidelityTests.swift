import AppStore
import AppStoreSimulator
import Foundation
import SubLedgerCore
import Testing

/// A refund as Apple states it since API 1.19 / notifications 2.20: `revocationType` and
/// `revocationPercentage` (thousandths of a percent) on the refunded transaction, in the Server API's answer
/// and in the REFUND notification's payload alike; a reversal clears both; a refund outside 0–100000 is
/// refused by the control API.
@Suite struct ProratedRefundFidelityTests {
    static func transactionInfo(_ fixture: SimulatorFixture, _ id: String) async throws -> [String: Any] {
        let (status, body) = try await AppleFidelityTests.get(
            fixture, "/inApps/v1/transactions/\(id)", token: try AppleFidelityTests.issuedToken(fixture))
        #expect(status == 200)
        return try AppleFidelityTests.payload(body["signedTransactionInfo"] as? String)
    }

    @Test func aRefundStatesItsTypeAndPercentageAndAReversalClearsThem() async throws {
        try await SimulatorFixture.with { fixture in
            _ = try await fixture.createAppleID("refund@example.com")
            let yearly = try #require(try await fixture.buy("refund@example.com", "pro.yearly").transactionID)
            let coins = try #require(try await fixture.buy("refund@example.com", "coins").transactionID)

            _ = try await fixture.action(
                "/control/transactions/\(yearly)/refund", body: RefundRequest(reason: 0, percentage: 25_000))
            let prorated = try await Self.transactionInfo(fixture, yearly)
            #expect(prorated["revocationType"] as? String == "REFUND_PRORATED")
            #expect(prorated["revocationPercentage"] as? Int == 25_000)
            #expect(prorated["revocationDate"] is Int)
            // SubLedger's decoder and mapping read both.
            let decoded = try JSONDecoder().decode(
                JWSTransactionDecodedPayload.self, from: JSONSerialization.data(withJSONObject: prorated))
            #expect(decoded.revocationType == .refundProrated)
            #expect(try decoded.coreTransaction(source: .serverAPI).revocationPercentage == 25_000)

            _ = try await fixture.action("/control/transactions/\(coins)/refund")
            let whole = try await Self.transactionInfo(fixture, coins)
            #expect(whole["revocationType"] as? String == "REFUND_FULL")
            #expect(whole["revocationPercentage"] as? Int == 100_000)

            _ = try await fixture.action("/control/transactions/\(yearly)/refund-reversal")
            let reversed = try await Self.transactionInfo(fixture, yearly)
            #expect(reversed["revocationType"] == nil)
            #expect(reversed["revocationPercentage"] == nil)
            #expect(reversed["revocationDate"] == nil)

            for percentage in [-1, 100_001] {
                await #expect(throws: (any Error).self) {
                    _ = try await fixture.action(
                        "/control/transactions/\(yearly)/refund", body: RefundRequest(percentage: percentage))
                }
            }
        }
    }
}
