import AppStore
import AppStoreSimulator
import CatalogFile
import Foundation
import SubLedgerCore
import SubLedgerHTTP
import SubLedgerStore
import SubLedgerTestSupport
import SubLedgerUseCases
import Testing

/// docs/ownership.md's stories under each catalog `ownership` policy, over real HTTP with appstore-sim as Apple: app
/// receipts and StoreKit 2 signed transactions. Google Play's twin is `GooglePlayOwnershipPolicyEndToEndTests`.
@Suite struct OwnershipPolicyEndToEndTests {
    typealias E = EndToEndHarness

    /// What each policy answers in the stories: whether the account submitting a chain another account owns
    /// takes it (`takes`), and whether a new purchase by another account after the owner's lapse goes to that
    /// account (`lapsedOwnerLoses`).
    struct Expectation: CustomTestStringConvertible, Sendable {
        var policy: OwnershipPolicy
        var renewingOwnerLoses: Bool
        var lapsedOwnerLoses: Bool
        var testDescription: String { policy.rawValue }
    }

    static let expectations: [Expectation] = [
        Expectation(policy: .activeAutoRenewerKeeps, renewingOwnerLoses: false, lapsedOwnerLoses: true),
        Expectation(policy: .latestSubmitterTakes, renewingOwnerLoses: true, lapsedOwnerLoses: true),
        Expectation(policy: .originalAccountKeeps, renewingOwnerLoses: false, lapsedOwnerLoses: false),
    ]

    /// The answer a submission gets for a transaction of a chain: `applied` when the submitter got it.
    static func result(submitterGetsIt: Bool) -> String {
        submitterGetsIt ? "applied" : "belongs_to_another_account"
    }

    /// Story 1 then story 2 with app receipts, as `EndToEndTests.bothOwnershipStoriesFromTheDocuments` tells them
    /// for the default policy.
    @Test(arguments: expectations)
    func bothStoriesWithReceipts(_ expected: Expectation) async throws {
        try await E.run { e in
            try await e.applyCatalog(ownershipPolicy: expected.policy)
            await e.loseNotifications()

            // Story 1: anna's renewal, uploaded by ben while anna still auto-renews.
            let phone = try e.appleID()
            let bought = try await e.control.purchase(
                PurchaseRequest(appleID: phone, bundleID: E.bundleID, productID: "pro.monthly"))
            _ = try await e.submitReceipt(bought.receiptData, account: "anna")
            let original = try #require(bought.originalTransactionID)
            let renewal = try await e.control.renew(original)
            let byBen = try await e.submitReceipt(renewal.receiptData, account: "ben")
            let benTakes = expected.renewingOwnerLoses
            #expect(byBen.json.results[try #require(renewal.transactionID)] == Self.result(submitterGetsIt: benTakes))
            #expect(try await e.owner(of: original) == (benTakes ? "ben" : "anna"))
            #expect(try await e.entitlements(benTakes ? "ben" : "anna").entitlementIDs == ["pro"])
            #expect(try await e.entitlements(benTakes ? "anna" : "ben").entitlementIDs.isEmpty)
            #expect(try await e.transfersIn(of: original) == (benTakes ? ["ben"] : []))

            // Story 2: cleo turns auto-renew off and lapses; dan subscribes on the same Apple ID (the same chain).
            let second = try e.appleID()
            let first = try await e.control.purchase(
                PurchaseRequest(appleID: second, bundleID: E.bundleID, productID: "pro.monthly"))
            _ = try await e.submitReceipt(first.receiptData, account: "cleo")
            let chain = try #require(first.originalTransactionID)
            _ = try await e.control.setAutoRenew(chain, enabled: false)
            _ = await e.control.advanceClock(.init(days: 35))
            let resubscribed = try await e.control.purchase(
                PurchaseRequest(appleID: second, bundleID: E.bundleID, productID: "pro.monthly"))
            #expect(resubscribed.originalTransactionID == chain)
            let byDan = try await e.submitReceipt(resubscribed.receiptData, account: "dan")
            let danTakes = expected.lapsedOwnerLoses
            let resubscription = try #require(resubscribed.transactionID)
            #expect(byDan.json.results[resubscription] == Self.result(submitterGetsIt: danTakes))
            #expect(try await e.owner(of: chain) == (danTakes ? "dan" : "cleo"))
            #expect(try await e.entitlements(danTakes ? "dan" : "cleo").entitlementIDs == ["pro"])
            #expect(try await e.entitlements(danTakes ? "cleo" : "dan").entitlementIDs.isEmpty)

            // Later, cleo signs in again and uploads the device's receipt, with the chain's newest renewal.
            let renewedAgain = try await e.control.renew(chain)
            let byCleo = try await e.submitReceipt(renewedAgain.receiptData, account: "cleo")
            // Cleo gets it when she still owns the chain, or when the last submitter always takes it.
            let cleoHasIt = !danTakes || expected.renewingOwnerLoses
            #expect(
                byCleo.json.results[try #require(renewedAgain.transactionID)] == Self.result(submitterGetsIt: cleoHasIt)
            )
            #expect(try await e.owner(of: chain) == (cleoHasIt ? "cleo" : "dan"))
            #expect(
                try await e.entitlements(cleoHasIt ? "cleo" : "dan").firstExpiry
                    == EndToEndTests.iso(
                        try EndToEndTests.expiry(of: renewedAgain)))
            #expect(try await e.entitlements(cleoHasIt ? "dan" : "cleo").entitlementIDs.isEmpty)
            let expectedTransfers = [danTakes ? "dan" : nil, expected.renewingOwnerLoses ? "cleo" : nil]
            #expect(try await e.transfersIn(of: chain) == expectedTransfers.compactMap { $0 })
        }
    }

    /// Story 2 in the order Apple usually delivers it: the notification of dan's purchase reaches SubLedger before
    /// dan's receipt. Cleo's lapsed subscription is not revived by it (unless the policy gives her everything),
    /// and dan's receipt then decides as in `bothStoriesWithReceipts`.
    @Test(arguments: expectations)
    func purchaseAfterTheLapseNotifiedBeforeTheReceipt(_ expected: Expectation) async throws {
        try await E.run { e in
            try await e.applyCatalog(ownershipPolicy: expected.policy)
            let appleID = try e.appleID()
            let first = try await e.control.purchase(
                PurchaseRequest(appleID: appleID, bundleID: E.bundleID, productID: "pro.monthly"))
            _ = try await e.submitReceipt(first.receiptData, account: "cleo")
            await e.deliverNotifications()
            let chain = try #require(first.originalTransactionID)
            _ = try await e.control.setAutoRenew(chain, enabled: false)
            await e.deliverNotifications()
            _ = await e.control.advanceClock(.init(days: 35))
            await e.deliverNotifications()
            #expect(try await e.entitlements("cleo").entitlementIDs.isEmpty)

            let resubscribed = try await e.control.purchase(
                PurchaseRequest(appleID: appleID, bundleID: E.bundleID, productID: "pro.monthly"))
            #expect(resubscribed.originalTransactionID == chain)
            await e.deliverNotifications()
            let cleoKeepsEverything = !expected.lapsedOwnerLoses
            #expect(try await e.owner(of: chain) == "cleo")
            #expect(try await e.entitlements("cleo").entitlementIDs == (cleoKeepsEverything ? ["pro"] : []))

            let byDan = try await e.submitReceipt(resubscribed.receiptData, account: "dan")
            let resubscription = try #require(resubscribed.transactionID)
            #expect(byDan.json.results[resubscription] == Self.result(submitterGetsIt: !cleoKeepsEverything))
            let holder = cleoKeepsEverything ? "cleo" : "dan"
            #expect(try await e.owner(of: chain) == holder)
            #expect(try await e.entitlements(holder).entitlementIDs == ["pro"])
            #expect(try await e.entitlements(cleoKeepsEverything ? "dan" : "cleo").entitlementIDs.isEmpty)
            #expect(try await e.transfersIn(of: chain) == (cleoKeepsEverything ? [] : ["dan"]))
        }
    }

    /// Story 1 with StoreKit 2 signed transactions, notifications delivered: ben submits anna's renewal; later
    /// renewals arrive by notification only, and go to whoever owns the chain then, under every policy.
    @Test(arguments: expectations)
    func renewalSubmittedAsASignedTransaction(_ expected: Expectation) async throws {
        try await E.run { e in
            // With the Server API, the default policy judges a contested chain on Apple's current state.
            try await e.applyCatalog(ownershipPolicy: expected.policy, withTheSimulatorsServerAPIKey: true)
            let bought = try await e.control.purchase(
                PurchaseRequest(appleID: try e.appleID(), bundleID: E.bundleID, productID: "pro.monthly"))
            await e.deliverNotifications()
            let original = try #require(bought.originalTransactionID)
            let byAnna = try await e.submitSignedTransaction(try #require(bought.signedTransaction), account: "anna")
            #expect(byAnna.results[try #require(bought.transactionID)] == "applied")
            #expect(try await e.owner(of: original) == "anna")

            let renewal = try await e.control.renew(original)
            await e.deliverNotifications()
            let byBen = try await e.submitSignedTransaction(try #require(renewal.signedTransaction), account: "ben")
            let benTakes = expected.renewingOwnerLoses
            #expect(byBen.results[try #require(renewal.transactionID)] == Self.result(submitterGetsIt: benTakes))
            let owner = benTakes ? "ben" : "anna"
            #expect(try await e.owner(of: original) == owner)
            #expect(try await e.entitlements(owner).entitlementIDs == ["pro"])
            #expect(try await e.entitlements(benTakes ? "anna" : "ben").entitlementIDs.isEmpty)
            let transfers = try await e.transfersIn(of: original)

            // The next renewal reaches SubLedger by notification alone: it extends the owner, and moves nothing.
            let next = try await e.control.renew(original)
            await e.deliverNotifications()
            #expect(try await e.owner(of: original) == owner)
            #expect(try await e.transfersIn(of: original) == transfers)
            #expect(
                try await e.entitlements(owner).firstExpiry == EndToEndTests.iso(try EndToEndTests.expiry(of: next)))
        }
    }
}

extension EndToEndHarness {
    /// Applies the test catalog again with `ownershipPolicy` written for the app under `ownership:` (and, if asked,
    /// the simulator's App Store Server API key). Called before the test's first request: the server caches an app once it has read it.
    func applyCatalog(
        ownershipPolicy: OwnershipPolicy, withTheSimulatorsServerAPIKey: Bool = false,
        catalogYAML: String = ServiceHarness.catalogYAML
    ) async throws {
        var (catalog, secrets) = try CatalogFile.read(
            CatalogText.setting(ownershipPolicy, for: Self.bundleID, in: catalogYAML))
        if withTheSimulatorsServerAPIKey {
            let simApp = try control.app(Self.bundleID)
            let pem = try #require(simApp.serverAPI.privateKeyPEM)
            secrets[Self.bundleID, default: AppSecrets()].serverAPI = .init(
                issuerID: simApp.serverAPI.issuerID, keyID: simApp.serverAPI.keyID, privateKeyPEM: pem)
        }
        try await service.catalog.applyCatalog(catalog, secrets: secrets)
        let stored = try await service.catalog.app(bundleID: Self.bundleID)
        #expect(stored?.definition.ownershipPolicy == ownershipPolicy)
    }

    /// Posts a StoreKit 2 signed transaction for `account`; the answer's JSON.
    func submitSignedTransaction(_ jws: String, account: String) async throws -> [String: Any] {
        let answer = try await client.call(
            .post, "/v1/transactions", key: key, json: ["account_id": account, "signed_transaction": jws])
        #expect(answer.status == .ok, "\(answer.json)")
        return answer.json
    }

    /// The account owning the chain `chainID`.
    func owner(of chainID: String) async throws -> String? {
        try await service.pool.query(
            "SELECT owner_account_id FROM chains WHERE original_transaction_id = \(chainID)"
        ).first?.decode(String?.self, at: 0)
    }

    /// The accounts the chain moved to by transfers, in order.
    func transfersIn(of chainID: String) async throws -> [String] {
        try await service.pool.query(
            """
            SELECT account_id FROM ledger_entries WHERE kind = 'transfer_in'
                AND original_transaction_id = \(chainID) ORDER BY effective_at, entry_id
            """
        ).map { try $0.decode(String.self, at: 0) }
    }
}
