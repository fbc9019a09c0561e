import Foundation
import LedgerTestSupport
import PostgresLibPQ
import SubLedgerCore
import SubLedgerStore
import SubLedgerTestSupport
import Testing

/// The `subledger webhooks` commands, run as the built executable against a test schema: tables and JSON on
/// stdout, the secret once, and `Error: code: message` with exit status 1 for each bad input.
@Suite struct WebhooksCommandTests {
    static let catalog = """
        apps:
          - bundle_id: com.example.cli
            apple_app_id: 3333333333
            environments: [production, sandbox]
            products:
              - { product_id: cli.monthly, type: auto_renewable, subscription_group_id: "g", entitlements: [pro] }
        """

    struct Run {
        var status: Int32
        var stdout: String
        var stderr: String
    }

    static func run(_ arguments: [String], databaseURL: String) throws -> Run {
        let process = Process()
        process.executableURL = try ServedSubLedger.binary()
        process.arguments = ["webhooks"] + arguments + ["--database-url", databaseURL, "--log-level", "warning"]
        var environment = ProcessInfo.processInfo.environment
        for name in environment.keys where name.hasPrefix("SUBLEDGER_") || name == "DATABASE_URL" {
            environment[name] = nil
        }
        process.environment = environment
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let stdout = out.fileHandleForReading.readDataToEndOfFile()
        let stderr = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return Run(
            status: process.terminationStatus, stdout: String(decoding: stdout, as: UTF8.self),
            stderr: String(decoding: stderr, as: UTF8.self))
    }

    @Test func commandsManageEndpointsAndRefuseBadInputWithACode() async throws {
        try await TestDatabase.withSchema(template: .ledger) { schema, _, pool in
            try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
            let store = LedgerStore(pool: pool, logger: TestDatabase.logger)
            let (catalog, secrets) = try LedgerStore.readCatalog(Self.catalog)
            try await store.applyCatalog(catalog, secrets: secrets)
            let url = try FuzzTarget.databaseURL(schema: schema)

            let added = try Self.run(
                [
                    "add", "--app", "com.example.cli", "--url", "http://127.0.0.1:4242/hooks", "--type",
                    "entitlement.granted",
                    "--format", "json",
                ], databaseURL: url)
            #expect(added.status == 0, "\(added.stderr)")
            let json = try #require(try JSONSerialization.jsonObject(with: Data(added.stdout.utf8)) as? [String: Any])
            let secret = try #require(json["secret"] as? String)
            let id = try #require((json["endpoint"] as? [String: Any])?["endpoint_id"] as? String)
            #expect(secret.hasPrefix("whsec_"))
            #expect(added.stderr.contains("shown only now"))

            let listed = try Self.run(["list"], databaseURL: url)
            #expect(listed.status == 0)
            #expect(listed.stdout.contains(id))
            #expect(listed.stdout.contains("entitlement.granted"))
            #expect(!listed.stdout.contains(secret))

            let paused = try Self.run(["pause", id], databaseURL: url)
            #expect(paused.stdout.contains("paused (manual)"))
            let tested = try Self.run(["test", id], databaseURL: url)
            #expect(tested.stdout.hasPrefix("queued webhook.test event"))
            let deliveries = try Self.run(["deliveries", id, "--format", "json"], databaseURL: url)
            #expect(deliveries.stdout.contains("\"origin\" : \"test\""))

            let refusals: [([String], String)] = [
                (["add", "--app", "com.example.cli", "--url", "http://example.com/hooks"], "insecure_webhook_url"),
                (["add", "--app", "com.example.cli", "--url", "https://10.0.0.7/hooks"], "private_webhook_address"),
                (
                    ["add", "--app", "com.example.cli", "--url", "https://example.com/", "--type", "nope"],
                    "unknown_event_type"
                ),
                (["add", "--app", "com.example.none", "--url", "https://example.com/"], "unknown_app"),
                (
                    [
                        "add", "--app", "com.example.cli", "--url", "https://example.com/",
                        "--description", String(repeating: "d", count: 501),
                    ], "invalid_description"
                ),
                (["pause", "42"], "invalid_webhook_endpoint_id"),
                (["resume", UUID().uuidString], "unknown_webhook_endpoint"),
                (["replay", id, "--since", "last week"], "invalid_date"),
                (["rotate-secret", id, "--expire-previous-after", "soon"], "invalid_duration"),
                (["deliveries", id, "--state", "lost"], "invalid_delivery_state"),
            ]
            for (arguments, code) in refusals {
                let refused = try Self.run(arguments, databaseURL: url)
                #expect(refused.status == 1, "\(arguments)")
                #expect(refused.stderr.contains("Error: \(code): "), "\(arguments): \(refused.stderr)")
            }
        }
    }
}
