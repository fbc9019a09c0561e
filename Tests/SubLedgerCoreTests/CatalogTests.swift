import Foundation
import SubLedgerCore
import Testing

@Suite struct CatalogTests {
    static let validJSON = """
        {"apps": [{
          "bundle_id": "com.example.app", "apple_app_id": 123, "environments": ["production", "Sandbox"],
          "ownership_policy": "latest_submitter_takes",
          "products": [
            {"product_id": "pro.monthly", "type": "auto_renewable", "subscription_group_id": "g",
             "group_level": 1, "entitlements": ["pro"]},
            {"product_id": "coins", "type": "consumable", "credits": 50},
            {"product_id": "pass", "type": "non_renewing", "duration_days": 7, "entitlements": ["pro"]},
            {"product_id": "forever", "type": "non_consumable", "entitlements": ["lifetime"]}
          ]}]}
        """

    func decode(_ json: String) throws -> Catalog {
        try JSONDecoder().decode(Catalog.self, from: Data(json.utf8))
    }

    @Test func decodesTheSnakeCaseFileFormatAndRoundTrips() throws {
        let catalog = try decode(Self.validJSON)
        let app = try #require(catalog.app(bundleID: "com.example.app"))
        #expect(app.appAppleID == 123)
        #expect(app.environments == [.production, .sandbox])
        #expect(app.ownershipPolicy == .latestSubmitterTakes)
        #expect(app.product("coins")?.creditsPerUnit == 50)
        #expect(app.product("pass")?.durationDays == 7)
        #expect(app.product("pro.monthly")?.entitlementIDs == ["pro"])
        #expect(catalog.validationErrors.isEmpty)
        let reencoded = try JSONDecoder().decode(Catalog.self, from: JSONEncoder().encode(catalog))
        #expect(reencoded == catalog)
    }

    @Test func policyDefaultsToActiveAutoRenewerKeeps() throws {
        let catalog = try decode(#"{"apps": [{"bundle_id": "a", "products": []}]}"#)
        #expect(catalog.apps.first?.ownershipPolicy == .activeAutoRenewerKeeps)
        #expect(catalog.apps.first?.environments == [.production])
    }

    struct NameCase: CustomTestStringConvertible, Sendable {
        var name: String
        var json: String
        var expected: CatalogError
        var testDescription: String { name }
    }

    static let nameCases: [NameCase] = [
        NameCase(
            name: "unknown product type",
            json: #"{"apps": [{"bundle_id": "a", "products": [{"product_id": "p", "type": "subscription"}]}]}"#,
            expected: CatalogError(code: .unknownProductType, subject: "p", detail: "subscription")),
        NameCase(
            name: "unknown environment",
            json: #"{"apps": [{"bundle_id": "a", "environments": ["staging"], "products": []}]}"#,
            expected: CatalogError(code: .unknownEnvironment, subject: "a", detail: "staging")),
        NameCase(
            name: "unknown policy",
            json: #"{"apps": [{"bundle_id": "a", "ownership_policy": "coin_flip", "products": []}]}"#,
            expected: CatalogError(code: .unknownOwnershipPolicy, subject: "a", detail: "coin_flip")),
    ]

    @Test(arguments: nameCases)
    func unknownNamesFailDecodingWithATypedError(_ rule: NameCase) {
        #expect(throws: rule.expected) { try decode(rule.json) }
    }

    struct ValidationCase: CustomTestStringConvertible, Sendable {
        var name: String
        var catalog: Catalog
        var expected: [CatalogError]
        var testDescription: String { name }
    }

    static func app(_ products: [Product], environments: [StoreEnvironment] = [.production]) -> App {
        App(bundleID: "a", environments: environments, products: products)
    }

    static let validationCases: [ValidationCase] = [
        ValidationCase(
            name: "duplicate product id",
            catalog: Catalog(apps: [
                app([
                    Product(productID: "p", type: .nonConsumable),
                    Product(productID: "p", type: .nonConsumable),
                ])
            ]),
            expected: [CatalogError(code: .duplicateProductID, subject: "p")]),
        ValidationCase(
            name: "consumable without credits",
            catalog: Catalog(apps: [app([Product(productID: "c", type: .consumable)])]),
            expected: [CatalogError(code: .consumableWithoutCredits, subject: "c")]),
        ValidationCase(
            name: "consumable with entitlements",
            catalog: Catalog(apps: [
                app([
                    Product(
                        productID: "c", type: .consumable, entitlementIDs: ["x"],
                        creditsPerUnit: 1)
                ])
            ]),
            expected: [CatalogError(code: .entitlementsOnConsumable, subject: "c")]),
        ValidationCase(
            name: "credits on a subscription",
            catalog: Catalog(apps: [
                app([
                    Product(
                        productID: "s", type: .autoRenewable, subscriptionGroupID: "g",
                        creditsPerUnit: 5)
                ])
            ]),
            expected: [CatalogError(code: .creditsOnNonConsumable, subject: "s")]),
        ValidationCase(
            name: "subscription without group",
            catalog: Catalog(apps: [app([Product(productID: "s", type: .autoRenewable)])]),
            expected: [CatalogError(code: .subscriptionWithoutGroup, subject: "s")]),
        ValidationCase(
            name: "non-renewing without duration",
            catalog: Catalog(apps: [app([Product(productID: "n", type: .nonRenewing)])]),
            expected: [CatalogError(code: .nonRenewingWithoutDuration, subject: "n")]),
        ValidationCase(
            name: "duration on a non-consumable",
            catalog: Catalog(apps: [app([Product(productID: "l", type: .nonConsumable, durationDays: 3)])]),
            expected: [CatalogError(code: .durationOnRenewableOrOneTime, subject: "l")]),
        ValidationCase(
            name: "empty entitlement id and empty product id",
            catalog: Catalog(apps: [app([Product(productID: "", type: .nonConsumable, entitlementIDs: [""])])]),
            expected: [
                CatalogError(code: .emptyProductID, subject: ""),
                CatalogError(code: .emptyEntitlementID, subject: ""),
            ]),
        ValidationCase(
            name: "ids the API could never accept (IdentifierRule)",
            catalog: Catalog(apps: [
                App(
                    bundleID: "com.example app", environments: [.production],
                    products: [Product(productID: "pro monthly", type: .nonConsumable, entitlementIDs: ["pro"])])
            ]),
            expected: [
                CatalogError(code: .invalidBundleID, subject: "com.example app"),
                CatalogError(code: .invalidProductID, subject: "pro monthly"),
            ]),
        ValidationCase(
            name: "Google Play push settings: one without the other, a service account that is no address",
            catalog: Catalog(apps: [
                App(
                    bundleID: "a", environments: [.production], products: [],
                    googlePlay: GooglePlayListing(packageName: "com.example.a", pushAudience: "https://x.example/push")),
                App(
                    bundleID: "b", environments: [.production], products: [],
                    googlePlay: GooglePlayListing(
                        packageName: "com.example.b", pushAudience: "https://x.example/push",
                        pushServiceAccount: "no-at-sign")),
                App(
                    bundleID: "c", environments: [.production], products: [],
                    googlePlay: GooglePlayListing(
                        packageName: "com.example.c", pushAudience: "https://x.example/push",
                        pushServiceAccount: "push@project.iam.gserviceaccount.com")),
            ]),
            expected: [
                CatalogError(code: .invalidGooglePlayPush, subject: "a"),
                CatalogError(code: .invalidGooglePlayPush, subject: "b"),
            ]),
        ValidationCase(
            name: "duplicate bundle id, no environments",
            catalog: Catalog(apps: [app([]), app([], environments: [])]),
            expected: [
                CatalogError(code: .duplicateBundleID, subject: "a"),
                CatalogError(code: .noEnvironments, subject: "a"),
            ]),
    ]

    @Test(arguments: validationCases)
    func validationReportsEachDefectWithItsCode(_ rule: ValidationCase) throws {
        #expect(rule.catalog.validationErrors == rule.expected)
        let first = try #require(rule.expected.first)
        #expect(throws: first) { try rule.catalog.validate() }
    }

    @Test func ledgerRefusesAnInvalidApp() {
        let broken = App(bundleID: "a", products: [Product(productID: "c", type: .consumable)])
        let input = LedgerInput(kind: .poll, bundleID: "a", environment: .production, transactions: [])
        #expect(throws: LedgerError(code: .invalidApp, subject: "a")) {
            try Ledger.apply(input, to: LedgerSnapshot(), app: broken, now: Fixtures.day(0))
        }
    }

    @Test func errorDescriptionsNameTheCode() {
        #expect(CatalogError(code: .duplicateProductID, subject: "p").description.contains("duplicate_product_id"))
    }
}
