import CatalogFile
import Foundation
import LedgerTestSupport
import PostgresLibPQ
import SubLedgerTestSupport
import Testing

@testable import SubLedgerStore

/// `subledger fx`, `tax` and `apps small-business`: files applied whole, bad input refused
/// with the line or the field named and nothing written.
@Suite struct RevenueCommandsTests {
    static let catalogYAML = """
        apps:
          - bundle_id: com.example.rates
            apple_app_id: 1999999999
            environments: [production]
            products:
              - { product_id: pro.monthly, type: auto_renewable, subscription_group_id: "g1", entitlements: [pro] }
        """

    /// A file holding `text` in `directory`.
    static func file(_ text: String, in directory: String) throws -> String {
        let path = directory + "/\(UUID().uuidString).csv"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func ratesAndProgramPeriodsApplyAndBadInputIsRefused() async throws {
        let directory = NSTemporaryDirectory() + "subledger-revenue-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try await TestDatabase.withSchema(template: .ledger) { schema, _, pool in
            try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
            let (catalog, secrets) = try CatalogFile.read(Self.catalogYAML)
            try await CatalogStore(pool: pool).applyCatalog(catalog, secrets: secrets)
            func run(_ arguments: [String]) async throws -> (status: Int32, output: String) {
                try await SecretsCommandTests.subledger(arguments, schema: schema)
            }

            let rates = try Self.file("date,currency,rate\n2025-01-01,EUR,1.08\n2025-02-01,EUR,1.1\n", in: directory)
            let applied = try await run(["fx", "apply", rates, "--reporting-currency", "USD"])
            #expect(applied.status == 0, "\(applied.output)")
            #expect(applied.output.contains("applied 2 exchange rate(s) into USD"))
            let badLine = try Self.file("2025-03-01,EUR,1.2\n2025-03-02,EUR,abc\n", in: directory)
            let refused = try await run(["fx", "apply", badLine])
            #expect(refused.status != 0)
            #expect(refused.output.contains("line 2: the rate must be a positive decimal"))
            let badCurrency = try await run(["fx", "apply", rates, "--reporting-currency", "dollars"])
            #expect(badCurrency.status != 0)
            #expect(badCurrency.output.contains("three uppercase letters"))
            #expect(try await pool.query("SELECT count(*) FROM exchange_rates").single().decode(Int.self, at: 0) == 2)

            let taxes = try await run([
                "tax", "apply", try Self.file("GBR,2025-01-01,0.166667\nDEU,2025-01-01,1.19\n", in: directory),
            ])
            #expect(taxes.status != 0)
            #expect(taxes.output.contains("line 2"))
            #expect(
                try await pool.query("SELECT count(*) FROM storefront_tax_rates").single().decode(Int.self, at: 0) == 0)

            let set = try await run(["apps", "small-business", "set", "com.example.rates", "--from", "2025-01-01"])
            #expect(set.status == 0, "\(set.output)")
            let overlap = try await run(["apps", "small-business", "set", "com.example.rates", "--from", "2025-03-01"])
            #expect(overlap.status != 0)
            #expect(overlap.output.contains("overlaps"))
            let unknown = try await run(["apps", "small-business", "set", "com.example.nobody", "--from", "2025-01-01"])
            #expect(unknown.status != 0)
            #expect(unknown.output.contains("no app has the bundle id"))
            let badDate = try await run(["apps", "small-business", "set", "com.example.rates", "--from", "2025-02-30"])
            #expect(badDate.status != 0)
            #expect(badDate.output.contains("YYYY-MM-DD"))
            let list = try await run(["apps", "small-business", "list", "com.example.rates"])
            #expect(list.output.contains("2025-01-01 – open"))
        }
    }
}
