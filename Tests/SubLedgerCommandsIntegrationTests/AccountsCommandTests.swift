import LedgerTestSupport
import SubLedgerStore
import SubLedgerTestSupport
import Testing

/// `subledger accounts merge|aliases`: the rules of the HTTP routes, refusals printed as `code: message`.
@Suite struct AccountsCommandTests {
    typealias F = LedgerFixtures

    @Test func mergeMovesAGrantRecordsTheAliasAndRefusesBadInputWithItsCode() async throws {
        try await TestDatabase.withSchema(template: .ledger) { schema, _, pool in
            try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
            _ = try await F.app(on: pool)
            let url = SubLedgerCLI.databaseURL(try TestDatabase.connectionString(), schema: schema)
            func run(_ arguments: [String]) async -> SubLedgerCLI.Run {
                await SubLedgerCLI.run(
                    arguments,
                    environment: [
                        "DATABASE_URL": url,
                        "SUBLEDGER_SECRET_KEY": F.secretKeys.keys.map(\.base64).joined(separator: ","),
                    ])
            }
            let granted = await run([
                "grants", "grant", "--app", F.bundleID, "anon-1", "--entitlement", "pro", "--duration", "30d",
                "--reason", "beta", "--by", "jane",
            ])
            #expect(granted.status == 0, "\(granted.output)")

            let merged = await run([
                "accounts", "merge", "alice", "--from", "anon-1", "--app", F.bundleID, "--by", "jane",
            ])
            #expect(merged.status == 0, "\(merged.output)")
            #expect(merged.standardOutput.contains("merged anon-1 into alice"), "\(merged.output)")
            #expect(merged.standardOutput.contains("grant\t"), "\(merged.output)")
            let grants = await run(["grants", "list", "--app", F.bundleID, "alice"])
            #expect(grants.standardOutput.split(separator: "\n").count == 2, "\(grants.output)")

            let aliases = await run(["accounts", "aliases", "alice", "--app", F.bundleID])
            #expect(aliases.status == 0, "\(aliases.output)")
            #expect(aliases.standardOutput.contains("anon-1\t"), "\(aliases.output)")
            #expect(aliases.standardOutput.contains("\tjane"), "\(aliases.output)")

            for (arguments, code) in [
                (["alice", "--from", "alice"], "merge_into_self"),
                (["anon-1", "--from", "alice"], "account_merged"),
                (["alice", "--from", String(repeating: "x", count: 256)], "invalid_account_id"),
            ] {
                let answer = await run(["accounts", "merge"] + arguments + ["--app", F.bundleID, "--by", "jane"])
                #expect(answer.status != 0, "\(arguments)")
                #expect(answer.output.contains("\(code):"), "\(arguments): \(answer.output)")
            }
            let verify = await run(["ledger", "verify", "--app", F.bundleID])
            #expect(verify.status == 0, "\(verify.output)")
        }
    }
}
