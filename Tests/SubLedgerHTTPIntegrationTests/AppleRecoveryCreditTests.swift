import AppStore
import AppStoreSimulator
import Foundation
import PostgresLibPQ
import SubLedgerCore
import SubLedgerHTTP
import SubLedgerStore
import SubLedgerTestSupport
import SubLedgerUseCases
import Testing

/// Receipts stored while Apple failed are credited in the first round of the renewal job after Apple answers
/// again, not after their backoff; a receipt waiting for its own reason keeps its backoff.
@Suite struct AppleRecoveryCreditTests {
    typealias E = EndToEndHarness

    static func nextAttempt(_ e: E, _ id: Int64) async throws -> (String, Int64?) {
        let row = try await e.service.pool.query(
            """
            SELECT status, (extract(epoch FROM next_attempt_at) * 1000)::bigint FROM receipts WHERE receipt_id = \(id)
            """
        ).single()
        return (try row.decode(String.self, at: 0), try row.decode(Int64?.self, at: 1))
    }

    @Test func receiptsDeferredForAppleAreCreditedInTheFirstRoundAfterAppleAnswers() async throws {
        try await E.run { e in
            let accounts = ["ana", "ben", "cy"]
            e.control.setFault(FaultRule(kind: .http503, rate: 1), for: .verifyReceipt)
            for account in accounts {
                let bought = try await e.control.purchase(
                    PurchaseRequest(appleID: try e.appleID(), bundleID: E.bundleID, productID: "pro.monthly"))
                #expect(try await e.submitReceipt(bought.receiptData, account: account).status == .serviceUnavailable)
            }
            // A receipt waiting for a reason of its own (not Apple's): its backoff stands.
            let app = try #require(try await e.service.catalog.app(bundleID: E.bundleID))
            let now = Instant(millisecondsSince1970: e.control.clock().now)
            let own = try await e.service.store.storeSubmission(
                kind: .appReceipt, body: "b3duLXJlYXNvbg==", account: try AccountID("dee"), app: app)
            try await e.service.store.markSubmission(own, failed: "applying it failed", retryable: true, now: now)
            let ownBefore = try await Self.nextAttempt(e, own)
            #expect(try await e.service.store.appleDeferredInputs(now: now).total == 3)

            let poller = try EndToEndTests.poller(e)
            // Apple still failing: nothing is due before its time, nothing is credited.
            let stillDown = try await poller.runCycle()
            #expect(stillDown.checked == 0)
            #expect(try await e.service.store.appleDeferredInputs(now: now).waiting == 3)

            // Apple answers again; the clock has not moved: the three are credited in this round.
            e.control.clearFaults()
            let recovered = try await poller.runCycle()
            #expect(recovered.credited == 3)

            for account in accounts { #expect(try await e.entitlements(account).entitlementIDs == ["pro"]) }
            #expect(try await e.service.store.appleDeferredInputs(now: now).total == 0)
            #expect(try await Self.nextAttempt(e, own) == ownBefore)
            #expect(ownBefore.0 == "retry")
        }
    }
}
