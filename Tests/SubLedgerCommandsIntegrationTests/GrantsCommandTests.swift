import LedgerTestSupport
import SubLedgerStore
import SubLedgerTestSupport
import Testing

/// `subledger grants grant|list|revoke`: the rules of the HTTP routes, refusals printed as `code: message`.
@Suite struct GrantsCommandTests {
    typealias F = LedgerFixtures

    @Test func grantListAndRevokeRecordTheActorAndRefuseBadInputWithItsCode() async throws {
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
            let grantArguments = [
                "grants", "grant", "--app", F.bundleID, "alice", "--entitlement", "pro", "--duration", "30d",
                "--reason", "app review", "--by", "jane", "--idempotency-key", "ticket-1",
            ]
            let granted = await run(grantArguments)
            #expect(granted.status == 0, "\(granted.output)")
            let line = granted.standardOutput.split(separator: "\n").dropFirst().first.map(String.init) ?? ""
            let grantID = String(line.split(separator: "\t").first ?? "")
            #expect(grantID.count == 36, "\(granted.output)")
            #expect(line.contains("\tjane\t"), "\(line)")

            let repeated = await run(grantArguments)
            #expect(repeated.status == 0, "\(repeated.output)")
            #expect(repeated.standardOutput.contains(grantID), "\(repeated.output)")
            #expect(repeated.standardError.contains("used before"), "\(repeated.output)")

            let listed = await run(["grants", "list", "--app", F.bundleID, "alice"])
            #expect(listed.status == 0, "\(listed.output)")
            #expect(listed.standardOutput.split(separator: "\n").count == 2, "\(listed.output)")

            let revoked = await run(["grants", "revoke", "--app", F.bundleID, "alice", grantID, "--by", "sam"])
            #expect(revoked.status == 0, "\(revoked.output)")
            #expect(revoked.standardOutput.contains("\tjane\tsam\t"), "\(revoked.output)")

            for (arguments, code) in [
                (["--duration", "0d"], "invalid_grant_duration"),
                (["--entitlement", "gold"], "unknown_entitlement"),
                (["--until", "2001-01-01T00:00:00Z", "--duration", "1d"], "invalid_grant_duration"),
            ] {
                var refused = [
                    "grants", "grant", "--app", F.bundleID, "bob", "--entitlement", "pro", "--duration", "30d",
                    "--reason", "x", "--by", "jane",
                ]
                for pair in stride(from: 0, to: arguments.count, by: 2) {
                    if let index = refused.firstIndex(of: arguments[pair]) {
                        refused[index + 1] = arguments[pair + 1]
                    } else {
                        refused += [arguments[pair], arguments[pair + 1]]
                    }
                }
                let answer = await run(refused)
                #expect(answer.status != 0, "\(arguments)")
                #expect(answer.output.contains("\(code):"), "\(arguments): \(answer.output)")
            }
            let unknown = await run([
                "grants", "revoke", "--app", F.bundleID, "alice", "00000000-0000-0000-0000-000000000000", "--by", "sam",
            ])
            #expect(unknown.status != 0)
            #expect(unknown.output.contains("grant_not_found:"), "\(unknown.output)")

            // One grant and one revocation in the ledger, and the hash chain verifies.
            let entries = try await pool.query(
                "SELECT count(*) FROM ledger_entries WHERE kind IN ('manual_grant', 'manual_revoke')"
            ).single().decode(Int64.self, at: 0)
            #expect(entries == 2)
            let verify = await run(["ledger", "verify", "--app", F.bundleID])
            #expect(verify.status == 0, "\(verify.output)")
        }
    }
}
