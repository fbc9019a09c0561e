import AppStore
import AppStoreSimulator
import AppStoreStore
import CatalogFile
import Foundation
import LedgerTestSupport
import PostgresLibPQ
import SubLedgerCore
import SubLedgerHTTP
import SubLedgerStore
import SubLedgerTestSupport
import SubLedgerUseCases

/// appstore-sim in-process and two PostgreSQL schemas: `imported` receives `subledger import`'s work,
/// `live` the same chains through the live path (each transaction submitted by its account, as apps do).
struct ImportHarness: Sendable {
    static let bundleID = "com.example.one"
    static let catalogYAML = """
        apps:
          - bundle_id: com.example.one
            apple_app_id: 1111111111
            environments: [production, sandbox]
            shared_secret: one-secret
            products:
              - { product_id: pro.monthly, type: auto_renewable, subscription_group_id: "g1", entitlements: [pro] }
              - { product_id: pro.plus, type: auto_renewable, subscription_group_id: "g1", entitlements: [pro, plus] }
        """

    /// One database with SubLedger's app configured to call the simulator.
    struct Ledger: Sendable {
        let pool: PostgresPool
        let store: LedgerStore
        let ingestion: Ingestion
        let app: StoredApp
    }

    let sim: AppStoreSimulator
    let imported: Ledger
    let live: Ledger

    var control: SimulatorControl { sim.control }
    var now: Instant { Instant(millisecondsSince1970: sim.control.clock().now) }

    static func run(_ body: @Sendable (ImportHarness) async throws -> Void) async throws {
        let sim = try await AppStoreSimulator.start(
            .init(
                seed: 15,
                notificationTimeout: EndToEndHarness.notificationTimeout,
                apps: [
                    AppDefinition(
                        bundleID: bundleID, appAppleID: 1_111_111_111, sharedSecret: "one-secret",
                        products: [
                            ProductDefinition(
                                productID: "pro.monthly", type: .autoRenewable, subscriptionGroupID: "g1",
                                duration: .oneMonth, groupLevel: 2, price: 9_990, currency: "USD"),
                            ProductDefinition(
                                productID: "pro.plus", type: .autoRenewable, subscriptionGroupID: "g1",
                                duration: .oneMonth, groupLevel: 1, price: 14_990, currency: "USD"),
                        ])
                ]))
        do {
            try await TestDatabase.withSchema(maxConnections: 8, template: .ledger) { _, _, importedPool in
                try await TestDatabase.withSchema(maxConnections: 8, template: .ledger) { _, _, livePool in
                    let imported = try await ledger(importedPool, sim: sim)
                    let live = try await ledger(livePool, sim: sim)
                    try await body(ImportHarness(sim: sim, imported: imported, live: live))
                }
            }
        } catch {
            try? await sim.shutdown()
            throw error
        }
        try await sim.shutdown()
    }

    private static func ledger(_ pool: PostgresPool, sim: AppStoreSimulator) async throws -> Ledger {
        try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
        let store = LedgerStore(pool: pool)
        let catalogStore = CatalogStore(pool: pool, secretKeys: try SecretKeyring(keys: [SecretKey.generate()]))
        let simApp = try sim.control.app(bundleID)
        let (catalog, _) = try CatalogFile.read(catalogYAML)
        try await catalogStore.applyCatalog(
            catalog,
            secrets: [
                bundleID: AppSecrets(
                    sharedSecret: "one-secret",
                    serverAPI: .init(
                        issuerID: simApp.serverAPI.issuerID, keyID: simApp.serverAPI.keyID,
                        privateKeyPEM: simApp.serverAPI.privateKeyPEM ?? ""))
            ])
        let gateway = try sim.appleGateway()
        let ingestion = Ingestion(
            store: store, catalog: catalogStore, apple: gateway, logger: TestDatabase.logger,
            now: { Instant(millisecondsSince1970: sim.control.clock().now) })
        guard let app = try await catalogStore.app(bundleID: bundleID) else { throw HarnessError() }
        return Ledger(pool: pool, store: store, ingestion: ingestion, app: app)
    }

    /// `count` synthetic chains from the simulator, as the import file naming them.
    func seed(_ count: Int, seed: UInt64 = 1) throws -> (chains: BulkSeedResult, file: ImportFile) {
        let result = try control.seedChains(BulkSeedRequest(bundleID: Self.bundleID, count: count, seed: seed))
        return (result, try ImportFile(bytes: Array(result.csv.utf8)))
    }

    /// An importer into `ledger`.
    func importer(
        _ ledger: Ledger, _ configure: (inout MigrationImporter.Configuration) -> Void = { _ in }
    ) throws -> MigrationImporter {
        var configuration = MigrationImporter.Configuration(concurrency: 4, maximumBackoff: .seconds(2))
        configure(&configuration)
        return try MigrationImporter(
            ingestion: ledger.ingestion, app: ledger.app, configuration: configuration, logger: TestDatabase.logger)
    }

    /// Applies `chains` to `ledger` through the live path: each transaction, oldest first, as the StoreKit 2
    /// signed transaction its app submits for the account.
    func applyLive(_ chains: BulkSeedResult, to ledger: Ledger) async throws {
        for chain in chains.chains {
            let history = try control.transactionIDs(ofChain: chain.originalTransactionID)
            for id in history {
                let token = try control.signedTransaction(id)
                _ = try await ledger.ingestion.submitSignedTransaction(
                    token, account: try AccountID(chain.accountID), orderID: nil, app: ledger.app)
            }
        }
    }

    /// What the ledger holds, in a form two databases can be compared by: chains with their owners and
    /// transactions, ledger entries by idempotency key, and every account's entitlements now.
    func snapshot(_ ledger: Ledger) async throws -> LedgerSnapshotText {
        func lines(_ sql: PostgresQuery) async throws -> [String] {
            try await ledger.pool.query(sql).map { try $0.decode(String.self, at: 0) }.sorted()
        }
        let chains = try await lines(
            """
            SELECT c.original_transaction_id || ' ' || c.environment || ' ' || c.state || ' owner='
                || coalesce(c.owner_account_id, '-') || ' bindings='
                || (SELECT count(*) FROM ownership_bindings b WHERE b.app_id = c.app_id
                    AND b.environment = c.environment AND b.original_transaction_id = c.original_transaction_id)
            FROM chains c
            """)
        let transactions = try await lines(
            "SELECT transaction_id || ' ' || original_transaction_id || ' ' || product_id FROM transactions")
        let entries = try await lines("SELECT idempotency_key || ' ' || kind || ' ' || account_id FROM ledger_entries")
        var entitlements: [String] = []
        let accounts = try await lines("SELECT account_id FROM accounts")
        for account in accounts {
            let held = try await ledger.store.entitlements(for: try AccountID(account), app: ledger.app, at: now)
            entitlements += held.map {
                "\(account) \($0.entitlementID) until \($0.expiresAt.map { "\($0.millisecondsSince1970)" } ?? "-")"
            }
        }
        return LedgerSnapshotText(
            chains: chains, transactions: transactions, entries: entries, entitlements: entitlements.sorted())
    }

    /// Rows of `table` in `ledger`.
    func count(_ table: PostgresQuery, in ledger: Ledger) async throws -> Int64 {
        try await ledger.pool.query("SELECT count(*) FROM \(table)").single().decode(Int64.self, at: 0)
    }
}

/// A ledger's contents as sorted text lines.
struct LedgerSnapshotText: Sendable, Hashable {
    var chains: [String]
    var transactions: [String]
    var entries: [String]
    var entitlements: [String]
}

struct HarnessError: Error {}
