import AppStore
import AppStoreSimulator
import Foundation
import SubLedgerCore
import Testing

@Suite struct FaultInjectionTests {
    @Test func injectedFaultsAreClassifiedRetryableByVerifyReceiptClient() async throws {
        try await SimulatorFixture.with { fixture in
            _ = try await fixture.createAppleID("faults@example.com")
            let bought = try await fixture.buy("faults@example.com", "pro.monthly")
            let rules: [FaultRule] = [
                FaultRule(kind: .appleStatus, status: 21005),
                FaultRule(kind: .appleStatus, status: 21150, isRetryable: true),
                FaultRule(kind: .http503),
                FaultRule(kind: .html200),
            ]
            for rule in rules {
                _ = try await fixture.controlClient.call(
                    "PUT", "/control/faults/verify_receipt", body: rule, as: [String: FaultRule].self)
                let outcome = await fixture.verifyReceiptClient().verify(receiptData: bought.receiptData)
                #expect(outcome.isRetryable, "\(rule.kind) gave \(outcome)")
            }
            _ = try await fixture.controlClient.call(
                "DELETE", "/control/faults", body: [String: String](), as: [String: FaultRule].self)
            let verified = try await fixture.verifyReceiptClient().verify(receiptData: bought.receiptData).verified()
            #expect(verified.response.status == 0)
        }
    }

    @Test func faultRateAndRemainingLimitWhichRequestsFail() async throws {
        try await SimulatorFixture.with { fixture in
            _ = try await fixture.createAppleID("limited@example.com")
            let bought = try await fixture.buy("limited@example.com", "pro.monthly")
            fixture.simulator.control.setFault(FaultRule(kind: .http500, rate: 1, remaining: 2), for: .verifyReceipt)
            var retryable = 0
            for _ in 0..<4 {
                let outcome = await fixture.verifyReceiptClient().verify(receiptData: bought.receiptData)
                if outcome.isRetryable { retryable += 1 }
            }
            #expect(retryable == 2)
            fixture.simulator.control.setFault(FaultRule(kind: .http503, rate: 0), for: .serverAPI)
            let info = try await fixture.serverAPIClient().transactionInfo(transactionID: bought.transactionID!)
            #expect(info.transactionID == bought.transactionID)
        }
    }
}
