import AppStore
import AppStoreSimulator
import CatalogFile
import Foundation
import HTTPTypes
import HummingbirdTesting
import PostgresLibPQ
import SubLedgerCore
import SubLedgerHTTP
import SubLedgerStore
import SubLedgerTestSupport
import SubLedgerUseCases

/// SubLedger over a real socket and PostgreSQL, with appstore-sim as its Apple: verifyReceipt, signed data
/// and notifications all come from the simulator; SubLedger's clock is the simulator's manual clock.
struct EndToEndHarness: Sendable {
    static let bundleID = ServiceHarness.appOne
    /// How long appstore-sim waits for SubLedger to answer one notification. Apple gives up after seconds and
    /// retries hours later, which the simulator's manual clock only reaches when a test advances it; with 5 s,
    /// a test whose notification took longer on a machine busy with hundreds of parallel tests lost it (CI:
    /// `billingIssueGraceEndAndRecovery`). These tests check what SubLedger does with a notification, not how
    /// fast; the simulator's own tests cover time-outs.
    static let notificationTimeout: Duration = .seconds(60)

    let sim: AppStoreSimulator
    let service: ServiceHarness
    let client: any TestClientProtocol

    var control: SimulatorControl { sim.control }
    var key: String { service.keyOne }
    /// The second server's client when the run asked for one (`secondServer`), else the first's.
    var secondClient: any TestClientProtocol { service.secondClient ?? client }

    /// `configureApple` adjusts SubLedger's Apple configuration (timeouts, connections, circuit breaker).
    /// `distributed`: on the Citus cluster (`scripts/citus-test`) or a plain database of it; `startTime`: the
    /// simulator's clock at the start (default: now); `secondServer`: a second application on the same database
    /// (`secondClient`), as a second `serve` process; `monthlyPrice`: what Apple charges for `pro.monthly`, milli-units
    /// of its currency (9.99 USD unless a test prices it in another currency); `yearlyPrice`: the same for
    /// `pro.yearly` (99.99 USD); `moreProducts`: products the app sells besides the usual ones.
    static func run(
        configureApple: (inout AppleConfiguration) -> Void = { _ in },
        distributed: Bool = TestDatabase.isCitus,
        startTime: Instant? = nil,
        secondServer: Bool = false,
        monthlyPrice: (milli: Int64, currency: String) = (9_990, "USD"),
        yearlyPrice: (milli: Int64, currency: String) = (99_990, "USD"),
        moreProducts: [ProductDefinition] = [],
        _ body: @Sendable (EndToEndHarness) async throws -> Void
    ) async throws {
        let sim = try await AppStoreSimulator.start(
            .init(
                seed: 7,
                startTime: startTime,
                notificationTimeout: EndToEndHarness.notificationTimeout,
                apps: [
                    AppDefinition(
                        bundleID: bundleID, appAppleID: ServiceHarness.appleAppIDOne, sharedSecret: "one-secret",
                        gracePeriodDays: 16,
                        products: [
                            ProductDefinition(
                                productID: "pro.monthly", type: .autoRenewable, subscriptionGroupID: "g1",
                                duration: .oneMonth, price: monthlyPrice.milli, currency: monthlyPrice.currency,
                                winBackOffers: ["COMEBACK"]),
                            ProductDefinition(
                                productID: "pro.yearly", type: .autoRenewable, subscriptionGroupID: "g1",
                                duration: .oneYear, price: yearlyPrice.milli, currency: yearlyPrice.currency),
                            ProductDefinition(
                                productID: "pro.committed", type: .autoRenewable, subscriptionGroupID: "g2",
                                duration: .oneMonth, price: 6_990, currency: "USD", commitmentPeriods: 12),
                            ProductDefinition(productID: "coins.100", type: .consumable, price: 990, currency: "USD"),
                        ] + moreProducts)
                ]))
        do {
            var apple = AppleConfiguration(
                verifyReceiptProductionURL: sim.productionVerifyReceiptURL,
                verifyReceiptSandboxURL: sim.sandboxVerifyReceiptURL,
                trustAppleRoot: false, timeout: .seconds(20),
                serverAPIProductionURL: sim.serverAPIBaseURL(.production),
                serverAPISandboxURL: sim.serverAPIBaseURL(.sandbox))
            configureApple(&apple)
            try await ServiceHarness.run(
                apple: apple, additionalRoots: [sim.trustedRoot],
                now: { Instant(millisecondsSince1970: sim.control.clock().now) }, distributed: distributed,
                secondServer: secondServer
            ) { service, client in
                let port = try require(client.port)
                _ = await sim.control.updateNotificationSettings(
                    .init(defaultURL: "http://127.0.0.1:\(port)/v1/notifications/appstore"))
                try await body(EndToEndHarness(sim: sim, service: service, client: client))
            }
        } catch {
            try? await sim.shutdown()
            throw error
        }
        try await sim.shutdown()
    }

    /// A new Apple ID (production unless asked otherwise).
    func appleID(_ environment: StoreEnvironment = .production) throws -> String {
        try control.createAppleID(AppleIDDefinition(environment: environment)).appleID
    }

    /// Submits `receiptData` for `account` and returns the answer.
    func submitReceipt(_ receiptData: String, account: String, extra: [String: String] = [:])
        async throws -> (status: HTTPResponse.Status, json: [String: Any], headers: HTTPFields)
    {
        var body = ["account_id": account, "receipt_data": receiptData]
        body.merge(extra) { _, new in new }
        return try await client.call(.post, "/v1/receipts", key: key, json: body)
    }

    /// The entitlement ids of `account` now.
    func entitlements(_ account: String) async throws -> [String: Any] {
        try await client.call(.get, "/v1/accounts/\(account)/entitlements", key: key).json
    }

    /// Applies the test catalog again with the simulator's App Store Server API key as the app's, so SubLedger can
    /// call the Server API (Get All Subscription Statuses) for it.
    func giveTheAppTheSimulatorsServerAPIKey() async throws {
        let simApp = try control.app(Self.bundleID)
        guard let pem = simApp.serverAPI.privateKeyPEM else { throw MissingValue() }
        let (catalog, _) = try CatalogFile.read(ServiceHarness.catalogYAML)
        try await service.catalog.applyCatalog(
            catalog,
            secrets: [
                Self.bundleID: AppSecrets(
                    serverAPI: .init(
                        issuerID: simApp.serverAPI.issuerID, keyID: simApp.serverAPI.keyID, privateKeyPEM: pem))
            ])
    }

    /// Sends the simulator's notifications where they are refused at once (404), as if they were lost.
    func loseNotifications() async {
        _ = await control.updateNotificationSettings(
            .init(defaultURL: "http://127.0.0.1:\(client.port ?? 0)/lost-notifications"))
    }

    /// Points the simulator's notifications at SubLedger again (after `loseNotifications`).
    func pointNotificationsAtSubLedger() async {
        _ = await control.updateNotificationSettings(
            .init(defaultURL: "http://127.0.0.1:\(client.port ?? 0)/v1/notifications/appstore"))
    }

    /// Delivers every notification the simulator has queued and waits for SubLedger to have applied them.
    func deliverNotifications() async {
        await control.flushNotifications()
    }
}

private func require<T>(_ value: T?) throws -> T {
    guard let value else { throw MissingValue() }
    return value
}

private struct MissingValue: Error {}
