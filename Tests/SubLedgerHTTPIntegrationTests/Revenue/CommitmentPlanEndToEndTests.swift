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
            WHERE original_transaction_id = \(original)
            """
        ).single()
        return Commitment(
            plan: try row.decode(String?.self, at: 0), endsAtMilliseconds: try row.decode(Int64?.self, at: 1))
    }

    struct CommittedMonth: Equatable {
        var mrr: Int
        var committedMRR: Int
        var committedSubscribers: Int
    }

    /// What `mrr` and `churn` say of commitment plans from January 2025 to May 2026.
    struct CommittedFigures: Equatable {
        /// The months with MRR.
        var months: [CommittedMonth]
        /// The committed MRR of the first month that churned some MRR.
        var churnedMonthCommittedMRR: Int?
        var expired: Int?
        var expiredCommitted: Int?
    }

    static func committedFigures(_ e: E, admin: String) async throws -> CommittedFigures {
        let mrr = try await e.client.call(
            .get, "/v1/admin/reports/mrr?from=2025-01-01&to=2026-06-01&app=\(E.bundleID)", key: admin)
        #expect(mrr.status == .ok)
        let rows = mrr.json["rows"] as? [[String: Any]] ?? []
        let months = rows.filter { ($0["mrr_milli"] as? Int ?? 0) > 0 }.map { row in
            CommittedMonth(
                mrr: row["mrr_milli"] as? Int ?? -1, committedMRR: row["committed_mrr_milli"] as? Int ?? -1,
                committedSubscribers: row["committed_subscribers"] as? Int ?? -1)
        }
        let churnedMonth = rows.first { (($0["movement_milli"] as? [String: Any])?["churned"] as? Int ?? 0) > 0 }
        let churn = try await e.client.call(
            .get, "/v1/admin/reports/churn?from=2025-01-01&to=2026-06-01&app=\(E.bundleID)", key: admin)
        #expect(churn.status == .ok)
        let totals = churn.json["totals"] as? [String: Any] ?? [:]
        return CommittedFigures(
            months: months, churnedMonthCommittedMRR: churnedMonth?["committed_mrr_milli"] as? Int,
            expired: totals["expired"] as? Int, expiredCommitted: totals["expired_committed"] as? Int)
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
                """
                UPDATE chains SET billing_plan = NULL, commitment_ends_at = NULL WHERE original_transaction_id =
                    \(original)
                """)
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
                """
                SELECT count(*), sum(price_milliunits)::bigint FROM transactions WHERE original_transaction_id =
                    \(original)
                """)
            #expect(try paid.single().decode(Int64.self, at: 0) == 12)
            #expect(try paid.single().decode(Int64.self, at: 1) == 83_880)
            subscription = try await Self.subscription(e, "gail")
            #expect(subscription["state"] as? String == "expired")
            commitment = try #require(subscription["commitment"] as? [String: Any])
            #expect(commitment["billing_period_number"] as? Int == 12)

            // MRR: every month of the commitment counts 6.99 of committed MRR (83.88 over twelve months), and the
            // end of the commitment churns it. Churn: the expiry is one of a commitment plan.
            try await e.service.projectReports()
            let committed = try await Self.committedFigures(e, admin: admin)
            #expect(committed.months.count >= 11)
            for month in committed.months {
                #expect(month == CommittedMonth(mrr: 6_990, committedMRR: 6_990, committedSubscribers: 1), "\(month)")
            }
            #expect(committed.churnedMonthCommittedMRR == 0)
            #expect(committed.expired == 1)
            #expect(committed.expiredCommitted == 1)

            // A ledger stored before schema step 34 kept no plan on its transactions and state changes, and no
            // committed MRR: the step fills the plans in and queues the chain, and the projector recomputes it.
            try await e.service.pool.execute(
                script: """
                    UPDATE transactions SET billing_plan = NULL;
                    UPDATE chain_state_changes SET billing_plan = NULL;
                    UPDATE chain_money_facts SET committed = false;
                    UPDATE chain_mrr_moves SET committed_mrr_delta = 0, committed_subscribers_delta = 0;
                    UPDATE chain_mrr_steps SET committed_mrr_delta = 0, committed_subscribers_delta = 0;
                    """)
            let erased = try await Self.committedFigures(e, admin: admin)
            #expect(erased.months.allSatisfy { $0.committedMRR == 0 && $0.committedSubscribers == 0 })
            #expect(erased.expiredCommitted == 0)
            let stepThirtyFour = try #require(BundledMigrations.files().first { $0.name == "0034_committed_mrr.sql" })
            let fills = stepThirtyFour.text.components(separatedBy: ";\n").map { statement in
                statement.split(separator: "\n").filter { !$0.hasPrefix("--") }.joined(separator: "\n")
            }.filter { $0.hasPrefix("UPDATE") || $0.hasPrefix("INSERT INTO report_projection_queue") }
            #expect(fills.count == 3)
            for fill in fills { try await e.service.pool.execute(script: fill) }
            try await e.service.projectReports()
            #expect(try await Self.committedFigures(e, admin: admin) == committed)
        }
    }
}
