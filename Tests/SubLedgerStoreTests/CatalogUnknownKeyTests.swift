import CatalogFile
import Foundation
import SubLedgerCore
import Testing

/// A key the catalog format does not know refuses the whole file, naming the key, where it stands and the keys
/// known there: a misspelt or invented setting (another product's word for it) must never silently mean the
/// default.
@Suite struct CatalogUnknownKeyTests {
    static func catalog(app: [String] = [], product: String = "", top: [String] = []) -> String {
        (top + ["apps:", "  - bundle_id: com.example.keys", "    environments: [sandbox]"] + app.map { "    \($0)" }
            + [
                "    products:",
                "      - { product_id: pro.monthly, type: auto_renewable, subscription_group_id: \"1\", "
                    + "entitlements: [pro]\(product) }",
            ]).joined(separator: "\n")
    }

    static func refusal(_ text: String) -> CatalogFileError? {
        #expect(throws: CatalogFileError.self) { try CatalogFile.read(text) }
    }

    @Test func anUnknownKeyInAnAppIsRefusedWithItsPlaceAndTheKnownKeys() throws {
        let error = try #require(Self.refusal(Self.catalog(app: ["ownership_polcy: keep_first_owner"])))
        #expect(error.description.hasPrefix("invalid_catalog: "))
        #expect(error.message.contains("unknown key 'ownership_polcy'"), "\(error)")
        #expect(error.message.contains("apps[0] (com.example.keys)"), "\(error)")
        #expect(error.message.contains("ownership, ownership_policy"), "\(error)")
    }

    @Test func anUnknownTopLevelKeyIsRefused() throws {
        let error = try #require(Self.refusal(Self.catalog(top: ["version: 2"])))
        #expect(error.message.contains("unknown key 'version' at the top level; known keys there: apps"), "\(error)")
    }

    @Test func anUnknownKeyInAProductIsRefused() throws {
        let error = try #require(Self.refusal(Self.catalog(product: ", trial_days: 7")))
        #expect(error.message.contains("unknown key 'trial_days'"), "\(error)")
        #expect(error.message.contains("apps[0] (com.example.keys).products[0] (pro.monthly)"), "\(error)")
    }

    @Test func unknownKeysInAnAppsSettingsAreRefused() throws {
        let listing = Self.catalog(app: ["google_play: { package_name: com.example.android, package: x }"])
        let google = try #require(Self.refusal(listing))
        #expect(google.message.contains("unknown key 'package' at apps[0] (com.example.keys).google_play"), "\(google)")
        let writeBack = try #require(Self.refusal(Self.catalog(app: ["write_back: { finish_transaction: true }"])))
        #expect(writeBack.message.contains("'finish_transaction'"), "\(writeBack)")
        #expect(writeBack.message.contains("app_account_tokens, finish_transactions"), "\(writeBack)")
    }

    @Test func everyUnknownKeyOfOnePlaceIsNamed() throws {
        let error = try #require(Self.refusal(Self.catalog(app: ["restore: transfer", "owner: first"])))
        #expect(error.message.contains("unknown keys 'owner', 'restore'"), "\(error)")
    }

    @Test func aJSONCatalogIsCheckedAlike() throws {
        let json = #"{"apps": [{"bundle_id": "com.example.keys", "environments": ["sandbox"], "ownrship": "x"}]}"#
        let error = try #require(Self.refusal(json))
        #expect(error.message.contains("unknown key 'ownrship' at apps[0] (com.example.keys)"), "\(error)")
    }

    /// Every key the format knows is still read, at each place: the check refuses only what it should.
    @Test func everyKnownKeyIsRead() throws {
        let text = Self.catalog(
            app: [
                "apple_app_id: 1234567890", "ownership: keep_first_owner",
                "ownership_policy: original_account_keeps", "shared_secret: s",
                "server_api: { issuer_id: i, key_id: k, private_key: \"-----BEGIN PRIVATE KEY-----\" }",
                "consumption: { enabled: false, refund_preference: decline, endpoint: v2, sample_content_provided: true }",
                "write_back: { app_account_tokens: false, finish_transactions: false }",
                "google_play: { package_name: com.example.android }",
            ],
            product: ", group_level: 1, store: app_store, prices: [{ storefront: USA, currency: USD, price: \"9.99\" }]"
        )
        let read = try CatalogFile.read(text)
        #expect(read.catalog.apps.first?.ownershipPolicy == .originalAccountKeeps)
        #expect(read.catalog.apps.first?.googlePlay?.packageName == "com.example.android")
    }

}
