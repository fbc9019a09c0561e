import AppStore
import CatalogFile
import Foundation
import SubLedgerCore
import SubLedgerStore
import Testing

/// Xcode and local-testing transactions are accepted unverified only by apps that list the environment.
@Suite struct UnsignedEnvironmentTests {
    typealias H = ServiceHarness
    static let developmentApp = "com.example.dev"

    /// A transaction of `bundleID` signed by a chain nobody trusts, as Xcode's StoreKit testing signs.
    static func locallySigned(bundleID: String, environment: String, id: String) throws -> String {
        let chain = try SigningChain.generate(
            notValidBefore: Instant(millisecondsSince1970: 1_600_000_000_000),
            notValidAfter: Instant(millisecondsSince1970: 2_000_000_000_000))
        return try JWSSigner(chain: chain).sign(
            JWSTransactionDecodedPayload(
                originalTransactionID: id, transactionID: id, bundleID: bundleID, productID: "dev.unlock",
                purchaseDate: H.day(0).millisecondsSince1970, originalPurchaseDate: H.day(0).millisecondsSince1970,
                quantity: 1, rawType: "Non-Consumable", rawInAppOwnershipType: "PURCHASED",
                signedDate: H.day(0).millisecondsSince1970, rawEnvironment: environment))
    }

    @Test func xcodeTransactionIsAcceptedOnlyByAnAppThatListsXcode() async throws {
        try await H.run { harness, client in
            let (catalog, secrets) = try CatalogFile.read(
                """
                apps:
                  - bundle_id: com.example.dev
                    environments: [sandbox, xcode]
                    products:
                      - { product_id: dev.unlock, type: non_consumable, entitlements: [pro] }
                """)
            _ = try await harness.catalog.applyCatalog(catalog, secrets: secrets)
            let devKey = try await harness.keys.create(bundleID: Self.developmentApp, name: "dev").secret

            let xcode = try Self.locallySigned(bundleID: Self.developmentApp, environment: "Xcode", id: "1")
            let accepted = try await client.call(
                .post, "/v1/transactions", key: devKey, json: ["account_id": "dev", "signed_transaction": xcode])
            #expect(accepted.status == .ok)
            #expect(accepted.json.results == ["1": "applied"])
            #expect(accepted.json.entitlementIDs == ["pro"])

            // The same local signature claiming a signed environment is verified, and fails.
            let claimsSandbox = try Self.locallySigned(bundleID: Self.developmentApp, environment: "Sandbox", id: "2")
            let forged = try await client.call(
                .post, "/v1/transactions", key: devKey,
                json: ["account_id": "dev", "signed_transaction": claimsSandbox])
            #expect(forged.status == .unprocessableContent)

            // An app that does not list Xcode refuses Xcode data before looking at it.
            let other = try Self.locallySigned(bundleID: H.appOne, environment: "Xcode", id: "3")
            let refused = try await client.call(
                .post, "/v1/transactions", key: harness.keyOne,
                json: ["account_id": "dev", "signed_transaction": other])
            #expect(refused.status == .unprocessableContent)
            #expect(refused.json.errorCode == "environment_not_allowed")
        }
    }
}
