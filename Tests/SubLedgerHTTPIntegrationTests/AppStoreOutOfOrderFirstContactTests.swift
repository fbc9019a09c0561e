import AppStoreSimulator
import AppStoreStore
import Foundation
import PostgresLibPQ
import SubLedgerCore
import SubLedgerReports
import SubLedgerStore
import SubLedgerTestSupport
import SubLedgerUseCases
import Testing

/// An App Store subscription SubLedger first hears of through a later transaction (the notifications of its purchase
/// and first renewal lost, or a renewal's StoreKit 2 transaction submitted first) ends with the ledger in-order
/// delivery gives: the chain's earlier transactions read from Get Transaction History and applied with the one that
/// arrived, `grant` first, the same revenue.
///
/// Each story runs on its own simulator and database with the same seed and clock: alice orders pro.monthly, buys it
/// with the order's account token, and it renews twice; only what SubLedger hears of it differs.
@Suite struct AppStoreOutOfOrderFirstContactTests {
    typealias E = EndToEndHarness

    /// 2025-01-01T00:00:00Z: the stories' months are the revenue report's.
    static let start = Instant(millisecondsSince1970: 1_735_689_600_000)

    /// What SubLedger hears of alice's subscription.
    enum Delivery: Sendable {
        /// Every notification, as it happens: the reference.
        case inOrder
        /// Only the second renewal's DID_RENEW: the purchase's and the first renewal's notifications are dropped.
        case latestRenewalOnly
        /// As `latestRenewalOnly`, while the App Store Server API fails when the DID_RENEW first arrives; Apple
        /// delivers it again an hour later, when the Server API answers.
        case latestRenewalOnlyWhileTheServerAPIFails
        /// No notification at all; alice's app submits the second renewal's StoreKit 2 transaction.
        case signedRenewalFirst
        /// As `latestRenewalOnlyWhileTheServerAPIFails`, but the renewal job applies the stored notification ten
        /// minutes later, before Apple's retry.
        case latestRenewalOnlyWhileTheServerAPIFailsThenTheJob
        /// As `latestRenewalOnly`, for an app without an App Store Server API key.
        case latestRenewalOnlyWithoutAServerAPIKey
    }

    /// A chain's ledger in terms two databases can share: transactions and entries with each transaction named by
    /// its place in the chain (`t0` the purchase), and the revenue report's amounts for pro.monthly.
    struct LedgerShape: Equatable, Sendable, CustomStringConvertible {
        /// `tN price currency expiry account`, by purchase date.
        var transactions: [String] = []
        /// `kind tN`, in effective order.
        var entries: [String] = []
        /// The revenue report's amounts for pro.monthly, summed over its rows.
        var revenue: [String: Int] = [:]

        var description: String { "transactions \(transactions), entries \(entries), revenue \(revenue)" }
    }

    final class ShapeBox: @unchecked Sendable {
        var value = LedgerShape()
    }

    @Test func aDidRenewOfTheSecondRenewalHeardFirstFillsTheChainFromItsPurchase() async throws {
        let reference = try await Self.story(.inOrder)
        Self.expectInOrderShape(reference)
        let late = try await Self.story(.latestRenewalOnly)
        #expect(late == reference)
    }

    @Test func aFirstContactWhileTheServerAPIFailsIsAppliedWholeWhenAppleDeliversItAgain() async throws {
        let reference = try await Self.story(.inOrder)
        let late = try await Self.story(.latestRenewalOnlyWhileTheServerAPIFails)
        #expect(late == reference)
    }

    @Test func aFirstContactWhileTheServerAPIFailsIsAppliedWholeByTheRenewalJob() async throws {
        let reference = try await Self.story(.inOrder)
        let late = try await Self.story(.latestRenewalOnlyWhileTheServerAPIFailsThenTheJob)
        #expect(late == reference)
    }

    @Test func aRenewalsSignedTransactionSubmittedFirstFillsTheChainFromItsPurchase() async throws {
        let reference = try await Self.story(.inOrder)
        let late = try await Self.story(.signedRenewalFirst)
        #expect(late == reference)
    }

    /// An app without an App Store Server API key cannot ask Apple for the history: what arrived is applied alone
    /// (docs/explanation/ledger.md says so), one transaction and its `extend`, applied at once.
    @Test func withoutAServerAPIKeyTheLatestRenewalIsAppliedAsItArrived() async throws {
        let shape = try await Self.story(.latestRenewalOnlyWithoutAServerAPIKey)
        #expect(shape.transactions.count == 1)
        #expect(shape.entries == ["extend t0"])
        #expect(shape.revenue["sales"] == 1)
    }

    /// A chain first heard of at its 27th renewal is read over two pages of Apple's history (20 a page), and the
    /// customer's other purchases in Apple's answer (a consumable, another subscription group) stay off the chain.
    @Test func aChainFirstHeardOfAfterTwentySevenRenewalsIsReadOverEveryPageOfTheHistory() async throws {
        try await E.run(startTime: Self.start) { e in
            try await e.giveTheAppTheSimulatorsServerAPIKey()
            _ = await e.control.updateNotificationSettings(.init(drop: true))
            let order = try await e.client.call(
                .post, "/v1/orders", key: e.key, json: ["account_id": "alice", "product_id": "pro.monthly"])
            let token = try #require(order.json["app_account_token"] as? String)
            let appleID = try e.appleID()
            let bought = try await e.control.purchase(
                PurchaseRequest(
                    appleID: appleID, bundleID: E.bundleID, productID: "pro.monthly", appAccountToken: token))
            let chain = try #require(bought.originalTransactionID)
            _ = try await e.control.purchase(
                PurchaseRequest(appleID: appleID, bundleID: E.bundleID, productID: "coins.100"))
            _ = try await e.control.purchase(
                PurchaseRequest(appleID: appleID, bundleID: E.bundleID, productID: "pro.committed"))
            for _ in 0..<26 { _ = await e.control.advanceClock(.init(days: 31)) }
            _ = await e.control.updateNotificationSettings(.init(drop: false))
            _ = await e.control.advanceClock(.init(days: 31))
            await e.deliverNotifications()
            let renewals = e.control.notifications().filter {
                $0.originalTransactionID == chain && $0.notificationType == "DID_RENEW"
            }
            #expect(renewals.count == 27)
            #expect(renewals.filter { $0.dropped != true }.map(\.transactionID) == [renewals.last?.transactionID])

            let shape = try await Self.shape(e, chain: chain)
            #expect(shape.transactions.count == 28)
            #expect(shape.transactions.allSatisfy { $0.hasSuffix(" alice") && $0.contains(" 9990 USD ") })
            #expect(shape.entries.first == "grant t0")
            #expect(shape.entries.filter { $0.hasPrefix("extend") } == (1...27).map { "extend t\($0)" })
            #expect(shape.revenue["sales"] == 28)
            #expect(shape.revenue["gross_milli"] == 28 * 9_990)
        }
    }

    /// What in-order delivery gives: three transactions, a grant then two extensions, three sales.
    static func expectInOrderShape(_ shape: LedgerShape) {
        #expect(shape.transactions.count == 3)
        #expect(shape.entries.first == "grant t0")
        #expect(shape.entries.filter { $0.hasPrefix("extend") } == ["extend t1", "extend t2"])
        #expect(shape.revenue["sales"] == 3)
        #expect(shape.revenue["gross_milli"] == 3 * 9_990)
    }

    static func story(_ delivery: Delivery) async throws -> LedgerShape {
        let box = ShapeBox()
        try await E.run(startTime: start) { e in
            if delivery != .latestRenewalOnlyWithoutAServerAPIKey { try await e.giveTheAppTheSimulatorsServerAPIKey() }
            if delivery != .inOrder { _ = await e.control.updateNotificationSettings(.init(drop: true)) }
            let order = try await e.client.call(
                .post, "/v1/orders", key: e.key, json: ["account_id": "alice", "product_id": "pro.monthly"])
            let token = try #require(order.json["app_account_token"] as? String)
            let bought = try await e.control.purchase(
                PurchaseRequest(
                    appleID: try e.appleID(), bundleID: E.bundleID, productID: "pro.monthly", appAccountToken: token))
            let chain = try #require(bought.originalTransactionID)
            _ = await e.control.advanceClock(.init(days: 31))
            await e.deliverNotifications()
            switch delivery {
            case .inOrder, .signedRenewalFirst:
                break
            case .latestRenewalOnly, .latestRenewalOnlyWithoutAServerAPIKey:
                _ = await e.control.updateNotificationSettings(.init(drop: false))
            case .latestRenewalOnlyWhileTheServerAPIFails, .latestRenewalOnlyWhileTheServerAPIFailsThenTheJob:
                _ = await e.control.updateNotificationSettings(.init(drop: false))
                e.control.setFault(FaultRule(kind: .http503), for: .serverAPI)
            }
            _ = await e.control.advanceClock(.init(days: 31))
            await e.deliverNotifications()
            let notifications = e.control.notifications().filter { $0.originalTransactionID == chain }
            let renewals = notifications.filter { $0.notificationType == "DID_RENEW" }
            #expect(renewals.count == 2)
            let latest = try #require(renewals.last?.transactionID)
            switch delivery {
            case .inOrder:
                #expect(notifications.allSatisfy { $0.dropped != true })
            case .latestRenewalOnly, .latestRenewalOnlyWithoutAServerAPIKey:
                #expect(notifications.filter { $0.dropped != true }.map(\.transactionID) == [latest])
                #expect(try await storedNotifications(e) == ["DID_RENEW applied"])
            case .latestRenewalOnlyWhileTheServerAPIFails:
                // Stored, not applied, nothing of the chain on the ledger: never applied without its beginning.
                #expect(try await storedNotifications(e) == ["DID_RENEW retry"])
                #expect(try await shape(e, chain: chain).transactions.isEmpty)
                e.control.clearFaults()
                // Apple's first retry of a failed delivery, an hour after it.
                _ = await e.control.advanceClock(.init(minutes: 61))
                await e.deliverNotifications()
                #expect(try await storedNotifications(e) == ["DID_RENEW applied"])
            case .latestRenewalOnlyWhileTheServerAPIFailsThenTheJob:
                #expect(try await storedNotifications(e) == ["DID_RENEW retry"])
                e.control.clearFaults()
                _ = await e.control.advanceClock(.init(minutes: 10))
                #expect(try await renewalJob(e).runCycle().notifications == 1)
                #expect(try await storedNotifications(e) == ["DID_RENEW applied"])
            case .signedRenewalFirst:
                #expect(notifications.allSatisfy { $0.dropped == true })
                let signed = try e.control.signedTransaction(latest)
                let answer = try await e.client.call(
                    .post, "/v1/transactions", key: e.key, json: ["account_id": "alice", "signed_transaction": signed])
                #expect(answer.status == .ok)
                #expect(answer.json.results[latest] == "applied")
                #expect(answer.json.entitlementIDs == ["pro"])
            }
            box.value = try await shape(e, chain: chain)
        }
        return box.value
    }

    /// The renewal job as `subledger poll` builds it (its own gateway), on the simulator's clock, one cycle a run.
    static func renewalJob(_ e: E) throws -> RenewalPoller {
        var configuration = RenewalPoller.Configuration(worker: "first-contact")
        configuration.requestsPerSecond = 100_000
        configuration.once = true
        let control = e.control
        let now: @Sendable () -> Instant = { Instant(millisecondsSince1970: control.clock().now) }
        let ingestion = Ingestion(
            store: e.service.store, catalog: e.service.catalog, apple: try e.freshGateway(),
            logger: TestDatabase.logger, now: now)
        return RenewalPoller(
            configuration: configuration, queue: PollQueue(pool: e.service.pool), store: e.service.store,
            catalog: e.service.catalog, ingestion: ingestion, logger: TestDatabase.logger, now: now)
    }

    /// SubLedger's stored notifications, `type status`, in the order stored.
    static func storedNotifications(_ e: E) async throws -> [String] {
        try await e.service.pool.query(
            "SELECT notification_type, status FROM notifications ORDER BY notification_row_id"
        ).map { "\(try $0.decode(String.self, at: 0)) \(try $0.decode(String.self, at: 1))" }
    }

    static func shape(_ e: E, chain: String) async throws -> LedgerShape {
        var shape = LedgerShape()
        var names: [String: String] = [:]
        for row in try await e.service.pool.query(
            """
            SELECT transaction_id, coalesce(price_milliunits, -1), coalesce(currency, '-'),
                   coalesce(to_char(expires_date AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS'), '-'),
                   coalesce(account_id, '-')
            FROM transactions WHERE original_transaction_id = \(chain) ORDER BY purchase_date, transaction_id
            """)
        {
            let name = "t\(names.count)"
            names[try row.decode(String.self, at: 0)] = name
            shape.transactions.append(
                [
                    name, String(try row.decode(Int64.self, at: 1)), try row.decode(String.self, at: 2),
                    try row.decode(String.self, at: 3), try row.decode(String.self, at: 4),
                ].joined(separator: " "))
        }
        shape.entries = try await e.service.pool.query(
            """
            SELECT kind, coalesce(transaction_id, '-') FROM ledger_entries WHERE original_transaction_id = \(chain)
            ORDER BY effective_at, entry_id
            """
        ).map {
            let id = try $0.decode(String.self, at: 1)
            return "\(try $0.decode(String.self, at: 0)) \(names[id] ?? id)"
        }
        let admin = try await APIKeys(store: APIKeyStore(pool: e.service.pool)).create(bundleID: nil, name: "ops")
            .secret
        _ = try await ReportProjector(pool: e.service.pool).projectAll()
        let answer = try await e.client.call(
            .get, "/v1/admin/reports/revenue?from=2024-12-01&to=2027-12-01&by=month", key: admin)
        #expect(answer.status == .ok)
        for row in answer.json["rows"] as? [[String: Any]] ?? [] where row["product_id"] as? String == "pro.monthly" {
            for (name, value) in row["amounts"] as? [String: Any] ?? [:] {
                if let number = value as? Int { shape.revenue[name, default: 0] += number }
            }
        }
        return shape
    }
}
