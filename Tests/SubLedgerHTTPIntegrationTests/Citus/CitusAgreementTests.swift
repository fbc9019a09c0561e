import AppStore
import AppStoreSimulator
import Foundation
import PostgresLibPQ
import SubLedgerCore
import SubLedgerTestSupport
import Synchronization
import Testing

/// The same inputs on a single PostgreSQL and on the Citus cluster (`scripts/citus-test`) leave the same ledger:
/// the same entitlements, ledger entries, chains, ownership bindings, hash-chain links and webhook events, and the
/// same reports once the report projector caught up. Both runs
/// start the simulator with one seed at one instant, so Apple's ids, signatures and times are the same.
@Suite(.enabled(if: TestDatabase.isCitus, "runs on the Citus cluster of scripts/citus-test"))
struct CitusAgreementTests {
    typealias E = EndToEndHarness

    static let start = Instant(millisecondsSince1970: 1_790_000_000_000)
    static let accounts = [
        "alice", "anna", "ben", "cleo", "dan", "pia", "olga", "fay", "cody", "multi",
    ]

    /// Every flow of the list, one account or Apple ID each, written for both databases alike.
    static func flows(_ e: EndToEndHarness) async throws {
        // Purchase, renewal by notification, refund and its reversal.
        let bought = try await e.control.purchase(
            PurchaseRequest(appleID: try e.appleID(), bundleID: E.bundleID, productID: "pro.monthly"))
        await e.deliverNotifications()
        _ = try await e.submitReceipt(bought.receiptData, account: "alice")
        let original = try #require(bought.originalTransactionID)
        let renewed = try await e.control.renew(original)
        await e.deliverNotifications()
        _ = await e.control.advanceClock(.init(seconds: 5))
        _ = try await e.control.refund(try #require(renewed.transactionID))
        await e.deliverNotifications()
        _ = await e.control.advanceClock(.init(seconds: 5))
        _ = try await e.control.reverseRefund(try #require(renewed.transactionID))
        await e.deliverNotifications()

        // The ownership stories: uploads only (notifications would bring the renewals to the owner).
        await e.loseNotifications()
        let phone = try e.appleID()
        let annas = try await e.control.purchase(
            PurchaseRequest(appleID: phone, bundleID: E.bundleID, productID: "pro.monthly"))
        _ = try await e.submitReceipt(annas.receiptData, account: "anna")
        let renewal = try await e.control.renew(try #require(annas.originalTransactionID))
        _ = try await e.submitReceipt(renewal.receiptData, account: "ben")
        // A transfer: cleo lapsed with auto-renew off, dan bought again on the same Apple ID.
        let second = try e.appleID()
        let cleos = try await e.control.purchase(
            PurchaseRequest(appleID: second, bundleID: E.bundleID, productID: "pro.monthly"))
        _ = try await e.submitReceipt(cleos.receiptData, account: "cleo")
        let chain = try #require(cleos.originalTransactionID)
        _ = try await e.control.setAutoRenew(chain, enabled: false)
        _ = await e.control.advanceClock(.init(days: 35))
        let dans = try await e.control.purchase(
            PurchaseRequest(appleID: second, bundleID: E.bundleID, productID: "pro.monthly"))
        _ = try await e.submitReceipt(dans.receiptData, account: "dan")
        _ = try await e.submitReceipt(try await e.control.renew(chain).receiptData, account: "cleo")

        // An upgrade within the subscription group.
        let pias = try await e.control.purchase(
            PurchaseRequest(appleID: try e.appleID(), bundleID: E.bundleID, productID: "pro.monthly"))
        _ = try await e.submitReceipt(pias.receiptData, account: "pia")
        let upgraded = try await e.control.changeProduct(try #require(pias.originalTransactionID), to: "pro.yearly")
        _ = try await e.submitReceipt(upgraded.receiptData, account: "pia")

        // Family Sharing, granted and revoked.
        let member = try e.appleID()
        let olgas = try await e.control.purchase(
            PurchaseRequest(appleID: try e.appleID(), bundleID: E.bundleID, productID: "pro.monthly"))
        _ = try await e.submitReceipt(olgas.receiptData, account: "olga")
        let shared = try #require(olgas.transactionID)
        _ = try await e.control.shareWithFamily(shared, with: member)
        _ = try await e.submitReceipt(
            try await e.control.receipt(appleID: member, bundleID: E.bundleID).receiptData, account: "fay")
        _ = await e.control.advanceClock(.init(seconds: 5))
        _ = try await e.control.revokeFamilySharing(shared, from: member)
        _ = try await e.submitReceipt(
            try await e.control.receipt(appleID: member, bundleID: E.bundleID).receiptData, account: "fay")

        // A consumable.
        let coins = try await e.control.purchase(
            PurchaseRequest(appleID: try e.appleID(), bundleID: E.bundleID, productID: "coins.100"))
        _ = try await e.submitReceipt(coins.receiptData, account: "cody")

        // One receipt holding several chains (two subscription groups and a consumable on one Apple ID).
        let several = try e.appleID()
        _ = try await e.control.purchase(
            PurchaseRequest(appleID: several, bundleID: E.bundleID, productID: "pro.monthly"))
        _ = try await e.control.purchase(
            PurchaseRequest(appleID: several, bundleID: E.bundleID, productID: "pro.committed"))
        let last = try await e.control.purchase(
            PurchaseRequest(appleID: several, bundleID: E.bundleID, productID: "coins.100"))
        _ = try await e.submitReceipt(last.receiptData, account: "multi")
    }

    /// What the ledger says after the flows, without the values a database assigns (row ids, hashes over them,
    /// insertion times): each line one row, in an order of its own values.
    static func snapshot(_ e: EndToEndHarness) async throws -> [String: [String]] {
        var snapshot: [String: [String]] = [:]
        var answers: [String] = []
        for account in accounts {
            let body = try await e.entitlements(account)
            let json = try JSONSerialization.data(withJSONObject: body, options: [.sortedKeys])
            answers.append("\(account) \(String(decoding: json, as: UTF8.self))")
        }
        snapshot["entitlements"] = answers
        let tables: [(String, PostgresQuery)] = [
            (
                "ledger_entries",
                """
                SELECT concat_ws('|', environment, original_transaction_id, idempotency_key, kind, account_id,
                    transaction_id, product_id, entitlement_ids::text, credits,
                    (extract(epoch FROM effective_at - timestamptz 'epoch') * 1000)::bigint,
                    (extract(epoch FROM period_end - timestamptz 'epoch') * 1000)::bigint, reason)
                FROM ledger_entries ORDER BY 1
                """
            ),
            (
                "chains",
                """
                SELECT concat_ws('|', environment, original_transaction_id, owner_account_id, product_id, state,
                    expiration_reason, (extract(epoch FROM expires_at - timestamptz 'epoch') * 1000)::bigint,
                    will_auto_renew, in_billing_retry)
                FROM chains ORDER BY 1
                """
            ),
            (
                "transactions",
                """
                SELECT concat_ws('|', environment, original_transaction_id, transaction_id, product_id, payload::text)
                FROM transactions ORDER BY 1
                """
            ),
            (
                "ownership_bindings",
                """
                SELECT concat_ws('|', environment, original_transaction_id, sequence, account_id, from_account_id,
                    transaction_id, started_reason, ended_at IS NULL)
                FROM ownership_bindings ORDER BY 1
                """
            ),
            (
                "ledger_chain_links",
                """
                SELECT concat_ws('|', environment, original_transaction_id, seq, item_table)
                FROM ledger_chain_links ORDER BY 1
                """
            ),
            (
                "webhook_events",
                """
                SELECT concat_ws('|', environment, account_id, account_sequence, event_type, cause_kind,
                    idempotency_key)
                FROM webhook_events ORDER BY 1
                """
            ),
            (
                "account_entitlement_periods",
                """
                SELECT concat_ws('|', account_id, environment, original_transaction_id, transaction_id, product_id,
                    state, ownership_type, will_auto_renew, valid_from::text, valid_until::text, expires_at::text)
                FROM account_entitlement_periods ORDER BY 1
                """
            ),
        ]
        for (name, query) in tables {
            snapshot[name] = try await e.service.pool.query(query).map { try $0.decode(String.self, at: 0) }
        }
        // The reports, once the report projector caught up: each at fixed instants and ranges around the flows, as
        // JSON without the freshness (when the projection ran).
        try await e.service.projectReports()
        let admin = try await e.service.keys.create(bundleID: nil, name: "agreement").secret
        for report in reports {
            let answer = try await e.client.call(.get, "/v1/admin/reports/\(report)", key: admin)
            #expect(answer.status == .ok, "\(report): \(answer.json)")
            var json = answer.json
            json.removeValue(forKey: "as_of")
            json.removeValue(forKey: "pending_changes")
            let text = try JSONSerialization.data(withJSONObject: json, options: [.sortedKeys])
            snapshot["report \(report)"] = ["\(answer.status.code) \(String(decoding: text, as: UTF8.self))"]
        }
        return snapshot
    }

    /// The reports compared, every one the admin API serves, with the flows' months in range.
    static let reports = [
        "summary?at=2026-10-15T00:00:00Z", "active?at=2026-10-15T00:00:00Z", "active-over-time?days=120",
        "expiring?at=2026-10-15T00:00:00Z&within=30d", "churn?from=2026-09-01&to=2027-01-01",
        "refunds?from=2026-09-01&to=2027-01-01", "transfers?from=2026-09-01&to=2027-01-01", "unclaimed",
        "account/alice", "account/dan", "account/multi", "quarantined", "consumption?from=2026-09-01&to=2027-01-01",
        "trials?from=2026-09-01&to=2027-01-01", "retention?from=2026-09-01&to=2027-01-01&months=3",
        "revenue?from=2026-09-01&to=2027-01-01&by=month", "mrr?from=2026-09-01&to=2027-01-01",
    ]

    @Test func theFlowsLeaveTheSameLedgerOnOnePostgreSQLAndOnCitus() async throws {
        let single = try await Self.run(distributed: false)
        let distributed = try await Self.run(distributed: true)
        #expect(single.keys.sorted() == distributed.keys.sorted())
        for (name, rows) in single.sorted(by: { $0.key < $1.key }) {
            // Something to compare: every flow wrote to every table.
            #expect(!rows.isEmpty, "\(name) is empty")
            let other = distributed[name] ?? []
            #expect(rows == other, "\(name): \(rows.count) rows on PostgreSQL, \(other.count) on Citus")
        }
        #expect(single["entitlements"]?.contains { $0.hasPrefix("multi ") && $0.contains("\"pro\"") } == true)
    }

    static func run(distributed: Bool) async throws -> [String: [String]] {
        let result = Mutex<[String: [String]]>([:])
        try await E.run(distributed: distributed, startTime: start) { e in
            try await flows(e)
            let snapshot = try await snapshot(e)
            result.withLock { $0 = snapshot }
        }
        return result.withLock { $0 }
    }
}
