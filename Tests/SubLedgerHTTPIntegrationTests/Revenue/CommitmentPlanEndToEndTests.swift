import AppStore
import AppStoreSimulator
import Foundation
import SubLedgerCore
import SubLedgerStore
import Testing

/// A monthly plan with a 12-month commitment (Apple's billing plan `MONTHLY`), sold by appstore-sim: each
/// period states its place in the commitment; turning auto-renew off inside the commitment stops only the next
/// commitment (the customer pays every month to its end); the subscription ends with the commitment. SubLedger
/// keeps the plan and commitment, shows them in the subscriptions API and in the webhooks of each period.
@Suite struct CommitmentPlanEndToEndTests {
    typealias E = EndToEndHarness

    static func subscription(_ e: E, _ account: String) async throws -> [String: Any] {
        let answer = try await e.client.call(.get, "/v1/accounts/\(account)/subscriptions", key: e.key)
        return try #require((answer.json["subscriptions"] as? [[String: Any]])?.first)
    }

    /// The chain row's billing plan and commitment end (schema step 33), the latter in milliseconds.
    static func chainCommitment(_ e: E, _ original: String) async throws -> Commitment {
        let row = try await e.service.pool.query(
            """
            SELECT billing_plan, (extract(epoch FROM commitment_ends_at) * 1000)::bigint FROM chains
            WHERE original_transaction_id = $1
            """, [original]
        ).single()
        return Commitment(
            plan: try row.decode(String?.self, at: 0), endsAtMilliseconds: try row.decode(Int64?.self, at: 1))
    }

    struct Commitment: Equatable {
        var plan: String?
        var endsAtMilliseconds: Int64?
    }

    @Test func aCommittedMonthlyPlanRenewsToTheEndOfItsCommitmentAndThenEnds() async throws {
        try await E.run { e in
            let bought = try await e.control.purchase(
                PurchaseRequest(appleID: try e.appleID(), bundleID: E.bundleID, productID: "pro.committed"))
            let original = try #require(bought.originalTransactionID)
            _ = try await e.client.call(
                .post, "/v1/transactions", key: e.key,
                json: ["account_id": "gail", "signed_transaction": try #require(bought.signedTransaction)])
            await e.deliverNotifications()

            let granted = try #require(
                try await WebhookEventTests.timeline(e, "gail").first { $0.type == "entitlement.granted" })
            #expect(granted.data["billing_plan"] as? String == "MONTHLY")
            let first = try #require(granted.data["commitment"] as? [String: Any])
            #expect(first["billing_period_number"] as? Int == 1)
            #expect(first["total_billing_periods"] as? Int == 12)
            let endsAt = try #require(first["ends_at"] as? String)

            var subscription = try await Self.subscription(e, "gail")
            #expect(subscription["billing_plan"] as? String == "MONTHLY")
            var commitment = try #require(subscription["commitment"] as? [String: Any])
            #expect(commitment["billing_period_number"] as? Int == 1)
            #expect(commitment["ends_at"] as? String == endsAt)
            #expect(commitment["price"] as? String == "83.880")
            #expect(commitment["renews"] as? Bool == true)

            // Auto-renew off inside the commitment: the customer stays committed, only the next commitment is off.
            _ = await e.control.advanceClock(.init(seconds: 5))
            _ = try await e.control.setAutoRenew(original, enabled: false)
            await e.deliverNotifications()
            subscription = try await Self.subscription(e, "gail")
            commitment = try #require(subscription["commitment"] as? [String: Any])
            #expect(commitment["renews"] as? Bool == false)
            // The expiring report: auto-renew is off, yet the chain renews, because its commitment runs on.
            let admin = try await e.service.keys.create(bundleID: nil, name: "ops").secret
            let expiring = try await e.client.call(
                .get, "/v1/admin/reports/expiring?format=json&within=40d", key: admin)
            #expect(expiring.status == .ok)
            let row = try #require(
                (expiring.json["rows"] as? [[String: Any]])?.first {
                    $0["original_transaction_id"] as? String == original
                })
            #expect(row["will_auto_renew"] as? Bool == false)
            #expect(row["billing_plan"] as? String == "MONTHLY")
            #expect((row["commitment_ends_at"] as? String)?.prefix(19) == endsAt.prefix(19))
            #expect((expiring.json["totals"] as? [String: Any])?["in_commitment"] as? Int == 1)
            // A chain stored before schema step 33 had neither column: the step fills them from the latest
            // transaction's stored payload, as the apply writes them.
            let written = try await Self.chainCommitment(e, original)
            #expect(written.plan == "MONTHLY")
            #expect(written.endsAtMilliseconds != nil)
            _ = try await e.service.pool.query(
                "UPDATE chains SET billing_plan = NULL, commitment_ends_at = NULL WHERE original_transaction_id = $1",
                [original])
            #expect(try await Self.chainCommitment(e, original) == Commitment(plan: nil, endsAtMilliseconds: nil))
            let step = try #require(BundledMigrations.files().first { $0.name == "0033_chain_commitments.sql" })
            let backfill = try #require(step.text.range(of: "UPDATE chains"))
            try await e.service.pool.execute(script: String(step.text[backfill.lowerBound...]))
            #expect(try await Self.chainCommitment(e, original) == written)

            _ = await e.control.advanceClock(.init(seconds: 31 * 86_400))
            await e.deliverNotifications()
            subscription = try await Self.subscription(e, "gail")
            #expect(subscription["state"] as? String == "active")
            commitment = try #require(subscription["commitment"] as? [String: Any])
            #expect(commitment["billing_period_number"] as? Int == 2)
            let extended = try #require(
                try await WebhookEventTests.timeline(e, "gail").last { $0.type == "entitlement.extended" })
            #expect((extended.data["commitment"] as? [String: Any])?["billing_period_number"] as? Int == 2)

            // To the end of the commitment: twelve payments in all, then it ends.
            _ = await e.control.advanceClock(.init(seconds: 340 * 86_400))
            await e.deliverNotifications()
            let paid = try await e.service.pool.query(
                "SELECT count(*), sum(price_milliunits)::bigint FROM transactions WHERE original_transaction_id = $1",
                [original])
            #expect(try paid.single().decode(Int64.self, at: 0) == 12)
            #expect(try paid.single().decode(Int64.self, at: 1) == 83_880)
            subscription = try await Self.subscription(e, "gail")
            #expect(subscription["state"] as? String == "expired")
            commitment = try #require(subscription["commitment"] as? [String: Any])
            #expect(commitment["billing_period_number"] as? Int == 12)
        }
    }
}
