import CatalogFile
import Foundation
import LedgerTestSupport
import PostgresLibPQ
import SubLedgerCore
import SubLedgerStore
import SubLedgerTestSupport
import Testing

/// The `subledger webhooks` commands, run against a test schema: tables and JSON on
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

    static func run(_ arguments: [String], databaseURL: String) async -> SubLedgerCLI.Run {
        await SubLedgerCLI.run(["webhooks"] + arguments + ["--database-url", databaseURL, "--log-level", "warning"])
    }

    @Test func commandsManageEndpointsAndRefuseBadInputWithACode() async throws {
        try await TestDatabase.withSchema(template: .ledger) { schema, _, pool in
            try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
            let catalogStore = CatalogStore(pool: pool)
            let (catalog, secrets) = try CatalogFile.read(Self.catalog)
            try await catalogStore.applyCatalog(catalog, secrets: secrets)
            let url = SubLedgerCLI.databaseURL(try TestDatabase.connectionString(), schema: schema)

            let added = await Self.run(
                [
                    "add", "--app", "com.example.cli", "--url", "http://127.0.0.1:4242/hooks", "--type",
                    "entitlement.granted",
                    "--format", "json",
                ], databaseURL: url)
            #expect(added.status == 0, "\(added.standardError)")
            let json = try #require(
                try JSONSerialization.jsonObject(with: Data(added.standardOutput.utf8)) as? [String: Any])
            let secret = try #require(json["secret"] as? String)
            let id = try #require((json["endpoint"] as? [String: Any])?["endpoint_id"] as? String)
            #expect(secret.hasPrefix("whsec_"))
            #expect(added.standardError.contains("shown only now"))

            let listed = await Self.run(["list"], databaseURL: url)
            #expect(listed.status == 0)
            #expect(listed.standardOutput.contains(id))
            #expect(listed.standardOutput.contains("entitlement.granted"))
            #expect(!listed.standardOutput.contains(secret))

            let paused = await Self.run(["pause", id], databaseURL: url)
            #expect(paused.standardOutput.contains("paused (manual)"))
            let tested = await Self.run(["test", id], databaseURL: url)
            #expect(tested.standardOutput.hasPrefix("queued webhook.test event"))
            let deliveries = await Self.run(["deliveries", id, "--format", "json"], databaseURL: url)
            #expect(deliveries.standardOutput.contains("\"origin\" : \"test\""))

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
                let refused = await Self.run(arguments, databaseURL: url)
                #expect(refused.status == 1, "\(arguments)")
                #expect(refused.standardError.contains("Error: \(code): "), "\(arguments): \(refused.standardError)")
            }
        }
    }
}
