import AppStoreStore
import Foundation
import StripeSimulator
import StripeStore
import SubLedgerCore
import SubLedgerStore
import SubLedgerTestSupport
import SubLedgerUseCases
import Testing

/// `subledger import` of a Stripe file: subscriptions an app's backend made before SubLedger, each read from
/// stripe-sim's API and claimed by its row's account; their later renewals stay with that account.
@Suite struct StripeImportTests {
    typealias E2E = StripeEndToEndTests

    static func importer(_ c: E2E.Context) async throws -> MigrationImporter {
        let app = try #require(try await c.h.catalog.app(bundleID: StripeHarness.bundleID))
        // No row of a Stripe file calls Apple: a gateway to nowhere.
        let apple = try AppleGateway(
            configuration: AppleConfiguration(
                verifyReceiptProductionURL: "http://127.0.0.1:9/verifyReceipt",
                verifyReceiptSandboxURL: "http://127.0.0.1:9/sandbox/verifyReceipt", trustAppleRoot: true,
                timeout: .seconds(2)),
            logger: TestDatabase.logger)
        let ingestion = Ingestion(
            store: LedgerStore(pool: c.h.pool), catalog: c.h.catalog, apple: apple, logger: TestDatabase.logger,
            now: c.h.now)
        return try MigrationImporter(
            ingestion: ingestion,
            subscriptionImports: [
                .stripe: try #require(
                    StripeRegistration(gateway: c.h.gateway).subscriptionImport(logger: TestDatabase.logger))
            ], app: app,
            configuration: .init(concurrency: 2, maximumAttempts: 3, maximumBackoff: .milliseconds(50)),
            logger: TestDatabase.logger)
    }

    @Test func existingStripeSubscribersAreImportedFromAFileOfSubscriptionIDs() async throws {
        try await E2E.run { c in
            // Two subscriptions the app's backend made itself, with no SubLedger order: their webhooks reach
            // SubLedger, which records the chains with no owner.
            let alicesCustomer = try await c.sim.control.createCustomer(email: "alice@example.com")
            let alices = try await c.sim.control.createSubscription(customer: alicesCustomer, price: c.price)
            let bobsCustomer = try await c.sim.control.createCustomer(email: "bob@example.com")
            let bobs = try await c.sim.control.createSubscription(customer: bobsCustomer, price: c.price)
            #expect(try await c.owner(of: alices) == nil)
            // One bought through SubLedger's checkout: carol's.
            let carols = try await c.buy("carol")

            let csv = """
                account_id,stripe_subscription_id
                alice,\(alices)
                bob,\(bobs)
                dave,\(carols)
                erin,pi_123
                frank,sub_nobody
                alice,\(alices)

                """
            let file = try ImportFile(bytes: Array(csv.utf8))
            #expect(file.rows.count == 4)
            #expect(file.refused.map(\.reason.code) == ["invalid_subscription_id", "duplicate_row"])
            let importer = try await Self.importer(c)
            let summary = try await importer.run(file, fileName: "stripe.csv")
            #expect(summary.progress.rowsOK == 2)
            #expect(summary.progress.rowsFailed == 4)
            #expect(
                summary.failures.map { "\($0.lineNumber) \($0.reason.code)" } == [
                    "4 owned_by_another_account", "5 invalid_subscription_id", "6 invalid_purchase",
                    "7 duplicate_row",
                ])
            #expect(try await c.owner(of: alices) == "alice")
            #expect(try await c.owner(of: bobs) == "bob")
            #expect(try await c.owner(of: carols) == "carol")

            // A renewal of an imported subscription is its owner's.
            await c.advance(days: 31)
            #expect(try await c.transactions(of: alices).count == 2)
            #expect(try await c.owner(of: alices) == "alice")
            let entitlements = try await c.h.client.call(.get, "/v1/accounts/alice/entitlements", key: c.h.key)
            #expect(entitlements.status == .ok)
            let active = entitlements.json["entitlements"] as? [[String: Any]] ?? []
            #expect(active.map { $0["store"] as? String } == ["stripe"], "\(entitlements.json)")

            // The same file again: the imported rows are skipped, the failed ones tried again, nothing changes.
            let entries = try await c.ledgerEntries()
            let again = try await importer.run(file, fileName: "stripe.csv")
            #expect(again.progress.rowsSkipped == 2)
            #expect(again.progress.rowsOK == 0)
            #expect(try await c.ledgerEntries() == entries)
        }
    }
}
