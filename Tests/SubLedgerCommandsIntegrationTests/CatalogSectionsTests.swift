import CatalogFile
import Foundation
import SubLedgerCore
import Testing

@testable import SubLedgerCommands

/// `catalog apply` reads each app's store sections as the store modules declare them (`StoreModules`): the quick
/// start's catalog is read whole, its Stripe secrets under Stripe's name.
@Suite struct CatalogSectionsTests {
    @Test func theQuickStartCatalogIsReadWithEveryStoresSection() throws {
        let repository = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent()
        let text = try String(
            contentsOf: repository.appendingPathComponent("docs/quickstart/catalog.yaml"), encoding: .utf8)
        let sections = try StoreModules.catalogSections()
        let read = try CatalogFile.read(
            text, directory: repository.appendingPathComponent("docs/quickstart").path, sections: sections)
        #expect(read.catalog.apps.first?.ownershipPolicy == .activeAutoRenewerKeeps)
        // Stripe's module declares its section, and the quick start gives it.
        #expect(sections.contains { $0.store == .stripe })
        let stores = try #require(read.secrets.values.first { !$0.stores.isEmpty }?.stores)
        #expect(stores[.stripe, "secret_key"] == "sk_test_quickstart")
        #expect(stores[.stripe, "webhook_secret"] == "whsec_quickstart")
        // Without the modules' sections, the same file's store sections are unknown keys.
        #expect(throws: CatalogFileError.self) { try CatalogFile.read(text) }
    }
}
