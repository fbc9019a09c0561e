import Foundation
import GooglePlayClients
import GooglePlaySimulator
import GooglePlayStore
import SubLedgerCore
import SubLedgerTestSupport
import SubLedgerUseCases

/// play-sim selling one consumable (`coins`) in `packageName`, for suites that also run appstore-sim (whose names,
/// `PurchaseRequest` and `FaultRule`, are the same, so they stay in this file).
struct PlayStoreFixture: Sendable {
    static let packageName = "com.example.android"
    let sim: GooglePlaySimulator
    /// SubLedger's gateway to play-sim's Developer API.
    let gateway: GooglePlayGateway

    /// Runs `body` beside a play-sim, shut down after it.
    static func run(_ body: @Sendable (PlayStoreFixture) async throws -> Void) async throws {
        let sim = try await GooglePlaySimulator.start(
            .init(packages: [
                PackageDefinition(
                    packageName: packageName, products: [OneTimeProductDefinition(productId: "coins", consumable: true)]
                )
            ]))
        do {
            let gateway = GooglePlayGateway(
                httpClient: .shared, configuration: .init(developerAPI: .init(baseURL: sim.developerAPIBaseURL)),
                logger: TestDatabase.logger)
            try await body(PlayStoreFixture(sim: sim, gateway: gateway))
        } catch {
            try? await sim.shutdown()
            throw error
        }
        try await sim.shutdown()
    }

    /// The service account's JSON key, as the catalog's secrets hold it.
    func serviceAccountKey() throws -> String {
        String(decoding: try sim.serviceAccountKey.jsonData(), as: UTF8.self)
    }

    /// Buys coins for `account`: the purchase token.
    func buyCoins(account: String) async throws -> String {
        try await sim.control.purchase(
            PurchaseRequest(packageName: Self.packageName, productId: "coins", obfuscatedExternalAccountId: account)
        ).purchaseToken
    }

    /// play-sim's clock.
    var now: Instant { Instant(millisecondsSince1970: sim.control.clock().now) }

    /// Whether the purchase of `token` was consumed.
    func isConsumed(_ token: String) throws -> Bool { try sim.control.describe(token).state == "consumed" }

    /// Every Developer API call answers 503 until `recover()`.
    func failDeveloperAPI() throws { try sim.control.setFault(FaultRule(kind: "http_503"), for: .developerApi) }

    func recover() { sim.control.clearFaults() }
}
