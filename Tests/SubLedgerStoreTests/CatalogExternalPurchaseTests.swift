import CatalogFile
import SubLedgerCore
import Testing

/// `external_purchase` in the catalog: reporting needs the app's Apple id (the token names the app by it) and the
/// tax country the reports state; without the key nothing is reported.
@Suite struct CatalogExternalPurchaseTests {
    static func catalog(appleAppID: String? = "1111111111", externalPurchase: String?) -> String {
        var lines = ["apps:", "  - bundle_id: com.example.web"]
        if let appleAppID { lines.append("    apple_app_id: \(appleAppID)") }
        lines.append("    environments: [sandbox]")
        if let externalPurchase { lines.append("    external_purchase: \(externalPurchase)") }
        lines += [
            "    products:",
            "      - { product_id: prod_web, type: auto_renewable, subscription_group_id: web, store: stripe }",
        ]
        return lines.joined(separator: "\n")
    }

    @Test func reportingWithATaxCountryIsRead() throws {
        let read = try CatalogFile.read(Self.catalog(externalPurchase: "{report: true, tax_country: DEU}"))
        #expect(read.catalog.apps.first?.externalPurchase == ExternalPurchasePolicy(report: true, taxCountry: "DEU"))
    }

    @Test func withoutTheKeyNothingIsReported() throws {
        let read = try CatalogFile.read(Self.catalog(externalPurchase: nil))
        #expect(read.catalog.apps.first?.externalPurchase.report == false)
    }

    @Test(arguments: [
        (Optional("1111111111"), "{report: true}"), (Optional("1111111111"), "{report: true, tax_country: DE}"),
        (Optional("1111111111"), "{report: true, tax_country: deu}"), (nil, "{report: true, tax_country: DEU}"),
    ])
    func reportingWithoutWhatReportsNeedIsRefused(appleAppID: String?, externalPurchase: String) {
        let error = #expect(throws: CatalogFileError.self) {
            try CatalogFile.read(Self.catalog(appleAppID: appleAppID, externalPurchase: externalPurchase))
        }
        #expect(error?.message.contains("invalid_external_purchase") == true)
        #expect(error?.message.contains("com.example.web") == true)
    }

    @Test func anUnknownKeyUnderItIsRefused() {
        let error = #expect(throws: CatalogFileError.self) {
            try CatalogFile.read(Self.catalog(externalPurchase: "{report: true, tax_country: DEU, reprot: true}"))
        }
        #expect(error?.message.contains("'reprot'") == true)
        #expect(error?.message.contains("external_purchase") == true)
    }
}
