import CatalogFile
import SubLedgerCore
import SubLedgerStore
import Testing

/// A catalog file whose Production app lacks `apple_app_id` is refused when it is read, not discovered later
/// when every Production notification of the app is refused.
@Suite struct CatalogAppleAppIDTests {
    static func catalog(environments: String, appleAppID: String?) -> String {
        var lines = ["apps:", "  - bundle_id: com.example.appid"]
        if let appleAppID { lines.append("    apple_app_id: \(appleAppID)") }
        lines += [
            "    environments: \(environments)", "    products:",
            "      - { product_id: pro.monthly, type: auto_renewable, subscription_group_id: \"1\", entitlements: [pro] }",
        ]
        return lines.joined(separator: "\n")
    }

    @Test(arguments: ["[production]", "[production, sandbox]", "[Production]"])
    func aProductionAppWithoutAppleAppIDIsRefused(environments: String) {
        let error = #expect(throws: CatalogFileError.self) {
            try CatalogFile.read(Self.catalog(environments: environments, appleAppID: nil))
        }
        #expect(error?.description.hasPrefix("invalid_catalog: ") == true)
        #expect(error?.message.contains("missing_apple_app_id") == true)
        #expect(error?.message.contains("com.example.appid") == true)
    }

    @Test func anAppThatDefaultsToProductionNeedsItToo() {
        let text = """
            apps: [{bundle_id: com.example.default, products: [{product_id: p, type: non_consumable}]}]
            """
        let error = #expect(throws: CatalogFileError.self) { try CatalogFile.read(text) }
        #expect(error?.message.contains("missing_apple_app_id") == true)
    }

    @Test func aProductionAppWithAppleAppIDOrASandboxOnlyAppIsAccepted() throws {
        let production = try CatalogFile.read(Self.catalog(environments: "[production]", appleAppID: "42"))
        #expect(production.catalog.apps.first?.appAppleID == 42)
        let sandbox = try CatalogFile.read(Self.catalog(environments: "[sandbox]", appleAppID: nil))
        #expect(sandbox.catalog.apps.count == 1)
    }

    @Test func theCoreListsTheMissingIDAsAServingDefectOnly() {
        let app = App(bundleID: "com.example.core", environments: [.production], products: [])
        let catalog = Catalog(apps: [app])
        #expect(catalog.validationErrors.isEmpty)
        #expect(catalog.servingErrors.map(\.code) == [.missingAppleAppID])
    }
}
