import CatalogFile
import Foundation
import LedgerTestSupport
import PostgresLibPQ
import SubLedgerStore
import SubLedgerTestSupport
import Testing

/// `subledger webhooks add --format json` with standard output and standard error going to one place (a
/// terminal, `2>&1`): the JSON whole, then the reminder about the secret on a line of its own.
@Suite struct WebhooksAddOutputTests {
    @Test func theReminderFollowsTheJSONOnItsOwnLine() async throws {
        try await TestDatabase.withSchema(template: .ledger) { schema, _, pool in
            try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
            let catalogStore = CatalogStore(pool: pool)
            let (catalog, secrets) = try CatalogFile.read(WebhooksCommandTests.catalog)
            try await catalogStore.applyCatalog(catalog, secrets: secrets)

            let url = SubLedgerCLI.databaseURL(try TestDatabase.connectionString(), schema: schema)
            let run = await SubLedgerCLI.run([
                "webhooks", "add", "--app", "com.example.cli", "--url", "http://127.0.0.1:4242/hooks", "--format",
                "json", "--database-url", url, "--log-level", "warning",
            ])
            #expect(run.status == 0, "\(run.output)")
            let output = run.output

            let reminder = "the secret above is shown only now; keep it with your receiver\n"
            #expect(output.hasSuffix("}\n" + reminder), "\(output)")
            let json = String(output.dropLast(reminder.count))
            let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
            #expect((object?["secret"] as? String)?.hasPrefix("whsec_") == true)
        }
    }
}
