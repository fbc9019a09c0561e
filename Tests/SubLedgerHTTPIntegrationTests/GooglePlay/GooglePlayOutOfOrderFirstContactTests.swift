import Foundation
import GooglePlaySimulator
import PostgresLibPQ
import SubLedgerCore
import SubLedgerReports
import SubLedgerStore
import SubLedgerTestSupport
import SubLedgerUseCases
import Testing

/// A Google Play subscription SubLedger first hears of after its renewals (its first submission late, or a
/// notification for a later renewal arriving first) ends with the same ledger as one heard of at each order: every
/// order of the lineage read through the Orders API, the first order's `grant` first, the same revenue.
///
/// Each test runs two subscriptions bought at the same instant: `pro`, heard of at each order (the reference), and
/// `pro.plus` (same price and period), first heard of late; their ledgers are compared with the order ids' shared
/// base taken out.
@Suite struct GooglePlayOutOfOrderFirstContactTests {
    typealias E2E = GooglePlayPurchaseEndToEndTests

    /// A chain's ledger in terms two chains can share: transactions, entries, and the revenue of its product.
    struct LedgerShape: Equatable, CustomStringConvertible {
        /// `suffix price currency expiry trial account?`, by purchase date (`suffix` is `""`, `..0`, `..1`, …).
        var transactions: [String]
        /// `kind suffix`, in effective order.
        var entries: [String]
        /// The revenue report's amounts for the product, summed over its rows.
        var revenue: [String: Int]

        var description: String { "transactions \(transactions), entries \(entries), revenue \(revenue)" }
    }

    static func shape(_ h: E2E.Harness, chain: String, owner: String, product: String, revenue: [String: Any])
        async throws -> LedgerShape
    {
        func suffix(_ id: String) -> String { id.hasPrefix(chain) ? String(id.dropFirst(chain.count)) : id }
        let transactions = try await h.pool.query(
            """
            SELECT transaction_id, coalesce(price_milliunits, -1), coalesce(currency, '-'),
                   coalesce(to_char(expires_date AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS'), '-'),
                   is_trial_period, coalesce(account_id, '-')
            FROM transactions WHERE original_transaction_id = \(chain) ORDER BY purchase_date, transaction_id
            """
        ).map { row in
            let account = try row.decode(String.self, at: 5)
            return [
                suffix(try row.decode(String.self, at: 0)), String(try row.decode(Int64.self, at: 1)),
                try row.decode(String.self, at: 2), try row.decode(String.self, at: 3),
                String(try row.decode(Bool.self, at: 4)), account == owner ? "owner" : account,
            ].joined(separator: " ")
        }
        let entries = try await h.pool.query(
            """
            SELECT kind, coalesce(transaction_id, '-') FROM ledger_entries WHERE original_transaction_id = \(chain)
            ORDER BY effective_at, entry_id
            """
        ).map { "\(try $0.decode(String.self, at: 0)) \(suffix(try $0.decode(String.self, at: 1)))" }
        var amounts: [String: Int] = [:]
        for row in revenue["rows"] as? [[String: Any]] ?? [] where row["product_id"] as? String == product {
            for (name, value) in row["amounts"] as? [String: Any] ?? [:] {
                if let number = value as? Int { amounts[name, default: 0] += number }
            }
        }
        return LedgerShape(transactions: transactions, entries: entries, revenue: amounts)
    }

    /// The app acknowledges `purchase` itself (as the billing library does on the device), so Google keeps a
    /// purchase SubLedger has not heard of yet past its three days.
    static func acknowledgeOnDevice(_ h: E2E.Harness, _ purchase: PurchaseDescription) async throws {
        let app = try #require(await h.catalog.app(bundleID: E2E.bundleID))
        let (client, packageName) = try await h.gateway.client(for: app)
        try await client.acknowledgeSubscription(
            packageName: packageName, subscriptionId: purchase.productId, token: purchase.purchaseToken)
    }

    /// The revenue report over the months the tests' subscriptions run.
    static func revenue(_ h: E2E.Harness) async throws -> [String: Any] {
        let admin = try await APIKeys(store: APIKeyStore(pool: h.pool)).create(bundleID: nil, name: "ops").secret
        _ = try await ReportProjector(pool: h.pool).projectAll()
        let answer = try await h.client.call(
            .get, "/v1/admin/reports/revenue?from=2024-12-01&to=2025-06-01&by=month", key: admin)
        #expect(answer.status == .ok)
        return answer.json
    }

    /// The reference (`alice`'s `pro`, heard of at each order) and the late one (`bob`'s `pro.plus`), compared.
    static func expectSameLedger(_ h: E2E.Harness, reference: PurchaseDescription, late: PurchaseDescription)
        async throws
    {
        let revenue = try await Self.revenue(h)
        let expected = try await shape(
            h, chain: reference.orderId, owner: "alice", product: "pro", revenue: revenue)
        let actual = try await shape(h, chain: late.orderId, owner: "bob", product: "pro.plus", revenue: revenue)
        // The reference is what in-order delivery gives: three orders, a grant then two extensions, three sales.
        #expect(expected.entries == ["grant ", "extend ..0", "extend ..1"])
        #expect(expected.transactions.count == 3)
        #expect(expected.revenue["sales"] == 3)
        #expect(expected.revenue["gross_milli"] == 3 * 9_990)
        #expect(actual == expected)
    }

    @Test func aSubscriptionRenewedTwiceBeforeItsFirstSubmissionEndsWithEveryOrderGrantFirst() async throws {
        try await E2E.run { h in
            let reference = try await h.buy("pro", account: "alice")
            let late = try await h.buy("pro.plus", account: "bob")
            try await Self.acknowledgeOnDevice(h, late)
            #expect(try await h.submit("alice", reference).status == .ok)
            #expect(try await h.sender.runCycle().sent == 1)
            for _ in 0..<2 {
                _ = try await h.sim.control.advanceClock(ClockAdvanceRequest(days: 31))
                #expect(try await h.submit("alice", reference).status == .ok)
            }
            #expect(try h.sim.control.describe(late.purchaseToken).orderId == late.orderId + "..1")

            // bob's first submission comes after two renewals: his whole subscription is credited to him.
            let answer = try await h.submit("bob", late)
            #expect(answer.status == .ok)
            #expect(try await h.entitlements("bob") == ["plus", "pro"])
            try await Self.expectSameLedger(h, reference: reference, late: late)

            // The same submission again reads nothing more.
            #expect(try await h.submit("bob", late).status == .ok)
            try await Self.expectSameLedger(h, reference: reference, late: late)
        }
    }

    @Test func aNotificationOfTheLatestRenewalArrivingFirstFillsTheChainFromItsFirstOrder() async throws {
        try await E2E.run(pushes: true) { h in
            // Notifications of the purchases and their first renewals are lost.
            _ = try await h.sim.control.updateNotificationSettings(NotificationSettingsUpdate(drop: true))
            let reference = try await h.buy("pro", account: "alice")
            let late = try await h.buy("pro.plus", account: "bob")
            try await Self.acknowledgeOnDevice(h, late)
            #expect(try await h.submit("alice", reference).status == .ok)
            #expect(try await h.sender.runCycle().sent == 1)
            _ = try await h.sim.control.advanceClock(ClockAdvanceRequest(days: 31))
            #expect(try await h.submit("alice", reference).status == .ok)

            // The second renewals are pushed: alice's chain takes its next order; bob's is first heard of here.
            _ = try await h.sim.control.updateNotificationSettings(NotificationSettingsUpdate(drop: false))
            _ = try await h.sim.control.advanceClock(ClockAdvanceRequest(days: 31))
            let rows = try await GooglePlayNotificationEndToEndTests.notificationRows(h)
            #expect(rows.map(\.type) == ["SUBSCRIPTION_RENEWED", "SUBSCRIPTION_RENEWED"])
            #expect(rows.allSatisfy { $0.status == "applied" })
            let heard = try await h.pool.query(
                "SELECT transaction_id FROM transactions WHERE original_transaction_id = \(late.orderId) ORDER BY 1"
            ).map { try $0.decode(String.self, at: 0) }
            #expect(heard == [late.orderId, late.orderId + "..0", late.orderId + "..1"])

            // bob claims it: the ledger is the one in-order delivery gives.
            #expect(try await h.submit("bob", late).status == .ok)
            #expect(try await h.entitlements("bob") == ["plus", "pro"])
            try await Self.expectSameLedger(h, reference: reference, late: late)
        }
    }
}
