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
            let store = LedgerStore(pool: pool, logger: TestDatabase.logger)
            let (catalog, secrets) = try LedgerStore.readCatalog(WebhooksCommandTests.catalog)
            try await store.applyCatalog(catalog, secrets: secrets)

            let process = Process()
            process.executableURL = try ServedSubLedger.binary()
            process.arguments = [
                "webhooks", "add", "--app", "com.example.cli", "--url", "http://127.0.0.1:4242/hooks", "--format",
                "json", "--database-url", try FuzzTarget.databaseURL(schema: schema), "--log-level", "warning",
            ]
            var environment = ProcessInfo.processInfo.environment
            for name in environment.keys where name.hasPrefix("SUBLEDGER_") || name == "DATABASE_URL" {
                environment[name] = nil
            }
            process.environment = environment
            let both = Pipe()
            process.standardOutput = both
            process.standardError = both
            try process.run()
            let output = String(decoding: both.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            #expect(process.terminationStatus == 0, "\(output)")

            let reminder = "the secret above is shown only now; keep it with your receiver\n"
            #expect(output.hasSuffix("}\n" + reminder), "\(output)")
            let json = String(output.dropLast(reminder.count))
            let object = try JSONSerialization.jsonObject(with: Data(json.utf8)) as? [String: Any]
            #expect((object?["secret"] as? String)?.hasPrefix("whsec_") == true)
        }
    }
}
