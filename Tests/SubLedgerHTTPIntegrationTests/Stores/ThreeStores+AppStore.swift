import AppStoreSimulator
import Foundation
import SubLedgerCore

/// appstore-sim for `ThreeStoresTests` (apart, because appstore-sim's and play-sim's control types share names).
enum ThreeStoresAppStore {
    /// appstore-sim selling `pro.monthly` (9.99 USD a month) of the test's app, its clock at `start`.
    static func start(at start: Instant) async throws -> AppStoreSimulator {
        try await AppStoreSimulator.start(
            .init(
                seed: 7, startTime: start, notificationTimeout: .seconds(60),
                apps: [
                    AppDefinition(
                        bundleID: ThreeStoresTests.bundleID, appAppleID: 1_111_111_111, sharedSecret: "web-secret",
                        products: [
                            ProductDefinition(
                                productID: "pro.monthly", type: .autoRenewable, subscriptionGroupID: "ios",
                                duration: .oneMonth, price: 9_990, currency: "USD")
                        ])
                ]))
    }

    /// A purchase of `pro.monthly` by a new Apple Account with the order's `appAccountToken`: its StoreKit 2 signed
    /// transaction.
    static func buy(on sim: AppStoreSimulator, appAccountToken: String) async throws -> String {
        let appleID = try sim.control.createAppleID(AppleIDDefinition(environment: .production)).appleID
        let bought = try await sim.control.purchase(
            PurchaseRequest(
                appleID: appleID, bundleID: ThreeStoresTests.bundleID, productID: "pro.monthly",
                appAccountToken: appAccountToken))
        guard let signed = bought.signedTransaction else { throw ThreeStoresTests.Missing("a signed transaction") }
        return signed
    }
}
