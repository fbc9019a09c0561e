import AppStoreStore
import Foundation
import PostgresLibPQ
import SubLedgerCore
import SubLedgerStore
import SubLedgerTestSupport
import SubLedgerUseCases
import Testing

/// What arrives for a store reaches that store's port and no other: `StorePorts` picks the port by the input's store,
/// and a store this process is not configured for refuses it before anything is stored.
@Suite struct StorePortsTests {
    typealias H = ServiceHarness

    /// The App Store's port alone (a process without Google Play's settings), on the harness's ledger.
    static func appStoreOnly(_ harness: ServiceHarness) throws -> StorePorts {
        let ingestion = Ingestion(
            store: harness.store, catalog: harness.catalog,
            apple: try StoredInputLifecycleTests.gateway(harness, retry: StoredInputRetry()),
            logger: TestDatabase.logger, now: { harness.clock.now })
        return StorePorts(appStore: AppStorePort(ingestion: ingestion))
    }

    static func storedSubmissions(_ pool: PostgresPool) async throws -> Int64 {
        try await pool.query("SELECT count(*) FROM receipts").single().decode(Int64.self, at: 0)
    }

    @Test func aSubmissionIsVerifiedAndAppliedByItsStoresPort() async throws {
        try await H.run { harness, _ in
            let app = try #require(try await harness.catalog.app(bundleID: H.appOne))
            let ports = try Self.appStoreOnly(harness)
            let token = try harness.signedTransaction(id: "8100", purchasedOnDay: 0, expiresOnDay: 30)
            let submission = StoreSubmission(
                account: try AccountID("quinn"), artifact: .appStoreSignedTransaction(token))
            #expect(submission.store == .appStore)

            let outcome = try await ports.submit(submission, app: app)
            #expect(outcome.outcomes.map(\.transactionID) == ["8100"])
            #expect(outcome.outcomes.map(\.chainID) == ["8100"])
            #expect(outcome.entitlements.map(\.entitlementID) == ["pro"])
            #expect(outcome.entitlements.map(\.store) == [.appStore])
            #expect(try await Self.storedSubmissions(harness.pool) == 1)
        }
    }

    @Test func aStoreThisProcessIsNotConfiguredForRefusesBeforeStoringAnything() async throws {
        try await H.run { harness, _ in
            let app = try #require(try await harness.catalog.app(bundleID: H.appOne))
            let ports = try Self.appStoreOnly(harness)
            let purchase = StoreSubmission(
                account: try AccountID("quinn"),
                artifact: .googlePlayPurchase(
                    packageName: "com.example.one", productID: "pro.monthly", purchaseToken: "token-1"))
            #expect(purchase.store == .googlePlay)

            await #expect {
                _ = try await ports.submit(purchase, app: app)
            } throws: { error in
                (error as? IngestionError)?.code == .appMisconfigured
                    && "\(error)".contains("not configured for Google Play")
            }
            await #expect {
                _ = try await ports.receive(StorePush(store: .googlePlay, body: Data("{}".utf8), credential: nil))
            } throws: { error in
                (error as? IngestionError)?.code == .appMisconfigured
                    && "\(error)".contains("not configured for Google Play")
            }
            #expect(try await Self.storedSubmissions(harness.pool) == 0)
            let notifications = try await harness.pool.query("SELECT count(*) FROM notifications").single()
            #expect(try notifications.decode(Int64.self, at: 0) == 0)
        }
    }
}
