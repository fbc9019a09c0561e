import Foundation
import GooglePlaySimulator
import SubLedgerCore

/// play-sim for `ThreeStoresTests` (apart, because appstore-sim's and play-sim's control types share names).
enum ThreeStoresGooglePlay {
    /// play-sim selling the subscription `pro` (a monthly base plan) of the test's package, its clock at `start`.
    static func start(at start: Instant) async throws -> GooglePlaySimulator {
        try await GooglePlaySimulator.start(
            .init(
                startTime: start, pushTimeout: .seconds(120),
                packages: [
                    PackageDefinition(
                        packageName: ThreeStoresTests.packageName,
                        subscriptions: [
                            SubscriptionDefinition(
                                productId: "pro",
                                basePlans: [BasePlanDefinition(basePlanId: "monthly", billingPeriod: .oneMonth)])
                        ])
                ]))
    }

    /// The service account key play-sim's Developer API accepts, as the catalog's secret.
    static func serviceAccountKey(of sim: GooglePlaySimulator) throws -> String {
        String(decoding: try sim.serviceAccountKey.jsonData(), as: UTF8.self)
    }

    /// A purchase of `pro` for `account`: its purchase token and order id.
    static func buy(on sim: GooglePlaySimulator, account: String) async throws -> (token: String, orderID: String) {
        let bought = try await sim.control.purchase(
            PurchaseRequest(
                packageName: ThreeStoresTests.packageName, productId: "pro", obfuscatedExternalAccountId: account))
        return (bought.purchaseToken, bought.orderId)
    }
}
