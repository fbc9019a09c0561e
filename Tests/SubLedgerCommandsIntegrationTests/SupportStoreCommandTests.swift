import CatalogFile
import LedgerTestSupport
import SubLedgerCore
import SubLedgerStore
import SubLedgerTestSupport
import Testing

/// `subledger support store STORE ID`: a purchase looked up by an id its store's module declares for support
/// (Paddle's customer `ctm_…` and transaction `txn_…`), as `GET /v1/admin/lookup/{store}/{id}` does.
@Suite struct SupportStoreCommandTests {
    typealias F = LedgerFixtures

    @Test func aPaddlePurchaseIsFoundByItsCustomerAndTransactionAndBadIdsAreRefused() async throws {
        try await TestDatabase.withSchema(template: .ledger) { schema, _, pool in
            try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
            let catalog = CatalogStore(pool: pool, secretKeys: F.secretKeys)
            let (definitions, secrets) = try CatalogFile.read(
                """
                apps:
                  - bundle_id: \(F.bundleID)
                    environments: [production]
                    products:
                      - { product_id: pro_01cli, type: auto_renewable, subscription_group_id: "web", entitlements: [pro], store: paddle }
                """)
            try await catalog.applyCatalog(definitions, secrets: secrets)
            let app = try #require(try await catalog.app(bundleID: F.bundleID))
            let sale = Transaction(
                transactionID: "txn_01cli", chainID: "sub_01cli", productID: "pro_01cli", bundleID: F.bundleID,
                purchaseDate: F.day(0), expiresDate: F.day(30), environment: .production,
                source: .storeAPI(.paddle), price: 11_000, currency: "USD", customerID: "ctm_01cli")
            try await LedgerStore(pool: pool).apply(
                LedgerInput(
                    kind: .notification, bundleID: F.bundleID, environment: .production, submitter: nil,
                    transactions: [sale], renewalInfo: [], observedAt: F.day(1)),
                app: app, reference: .none, now: F.day(1))
            let url = SubLedgerCLI.databaseURL(try TestDatabase.connectionString(), schema: schema)
            func run(_ arguments: [String]) async -> SubLedgerCLI.Run {
                await SubLedgerCLI.run(
                    ["support", "store"] + arguments + ["--app", F.bundleID, "--format", "json"],
                    environment: [
                        "DATABASE_URL": url,
                        "SUBLEDGER_SECRET_KEY": F.secretKeys.keys.map(\.base64).joined(separator: ","),
                    ])
            }
            for id in ["ctm_01cli", "txn_01cli"] {
                let found = await run(["paddle", id])
                #expect(found.status == 0, "\(id): \(found.output)")
                #expect(found.standardOutput.contains("txn_01cli"), "\(id): \(found.output)")
            }
            for (arguments, message) in [
                (["paddle", "ctm_unknown"], "store_id_not_found"),
                (["paddle", "cus_01cli"], "invalid_store_id"),
                (["paddle-billing", "ctm_01cli"], "unknown store"),
                (["stripe", "cus_01cli"], "declares no ids"),
            ] {
                let refused = await run(arguments)
                #expect(refused.status != 0, "\(arguments)")
                #expect(refused.output.contains(message), "\(arguments): \(refused.output)")
            }
        }
    }
}
