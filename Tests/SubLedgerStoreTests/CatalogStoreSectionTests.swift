import CatalogFile
import Foundation
import SubLedgerCore
import SubLedgerStore
import Testing

/// A store's section of an app in the catalog file is read as its module declares it (`StoreCatalogSection`): the
/// catalog file knows no store's keys of its own, so a section no module declares is an unknown key, and a declared
/// one is held to its module's names and shapes.
@Suite struct CatalogStoreSectionTests {
    /// A section as a web store's module would declare one: a key that may be in a file, and a second in the file.
    static let section = StoreCatalogSection(
        store: .stripe,
        secrets: [
            .init(name: "secret_key", description: "a key (sk_…)", prefixes: ["sk_"], mayBeInFile: true),
            .init(name: "webhook_secret", description: "a signing secret (whsec_…)", prefixes: ["whsec_"]),
        ])

    static func catalog(section: [String]) -> String {
        (["apps:", "  - bundle_id: com.example.sections", "    environments: [sandbox]"] + section.map { "    \($0)" }
            + [
                "    products:",
                "      - { product_id: pro.monthly, type: auto_renewable, subscription_group_id: \"1\", "
                    + "entitlements: [pro] }",
            ]).joined(separator: "\n")
    }

    @Test func aDeclaredSectionsSecretsAreStoredUnderTheStoreByTheirNames() throws {
        let text = Self.catalog(section: [
            "stripe:", "  secret_key: sk_test_sections", "  webhook_secret: whsec_abcdefgh",
        ])
        let (_, secrets) = try CatalogFile.read(text, sections: [Self.section])
        let stores = try #require(secrets["com.example.sections"]?.stores)
        #expect(stores[.stripe, "secret_key"] == "sk_test_sections")
        #expect(stores[.stripe, "webhook_secret"] == "whsec_abcdefgh")
        #expect(stores.all.count == 2)
    }

    @Test func aSecretMayBeReadFromItsFileRelativeToTheCatalog() throws {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("sections-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        try Data("  sk_test_from_file\n".utf8).write(to: directory.appendingPathComponent("stripe.key"))
        let text = Self.catalog(section: [
            "stripe:", "  secret_key_file: stripe.key", "  webhook_secret: whsec_abcdefgh",
        ])
        let (_, secrets) = try CatalogFile.read(text, directory: directory.path, sections: [Self.section])
        #expect(secrets["com.example.sections"]?.stores[.stripe, "secret_key"] == "sk_test_from_file")
        let missing = Self.catalog(section: [
            "stripe:", "  secret_key_file: absent.key", "  webhook_secret: whsec_abcdefgh",
        ])
        let error = #expect(throws: CatalogFileError.self) {
            try CatalogFile.read(missing, directory: directory.path, sections: [Self.section])
        }
        #expect(error?.message.contains("cannot read stripe.secret_key_file") == true, "\(String(describing: error))")
    }

    @Test func aSectionNoModuleDeclaresIsAnUnknownKey() throws {
        let text = Self.catalog(section: [
            "stripe:", "  secret_key: sk_test_sections", "  webhook_secret: whsec_abcdefgh",
        ])
        let error = #expect(throws: CatalogFileError.self) { try CatalogFile.read(text) }
        #expect(error?.message.contains("unknown key 'stripe'") == true, "\(String(describing: error))")
    }

    @Test(arguments: [
        // A key the section does not declare.
        (
            [
                "stripe:", "  secret_key: sk_test_sections", "  webhook_secret: whsec_abcdefgh",
                "  publishable_key: pk_x",
            ],
            "unknown key 'publishable_key'"
        ),
        // A secret left out, or of the wrong shape.
        (
            ["stripe:", "  secret_key: sk_test_sections"],
            "stripe of com.example.sections needs webhook_secret: a signing"
        ),
        (
            ["stripe:", "  secret_key: pk_test_sections", "  webhook_secret: whsec_abcdefgh"],
            "needs secret_key or secret_key_file: a key (sk_…)"
        ),
        (["stripe:", "  secret_key: \"sk_test with space\"", "  webhook_secret: whsec_abcdefgh"], "needs secret_key"),
        // A section that is not a mapping.
        (["stripe: sk_test_sections"], "stripe of com.example.sections must be a mapping"),
    ])
    func aSectionIsHeldToItsDeclaration(lines: [String], refusal: String) throws {
        let error = #expect(throws: CatalogFileError.self) {
            try CatalogFile.read(Self.catalog(section: lines), sections: [Self.section])
        }
        #expect(error?.message.contains(refusal) == true, "\(String(describing: error))")
    }
}
