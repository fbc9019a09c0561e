import Foundation
import LedgerTestSupport
import PostgresLibPQ
import SubLedgerCore
import SubLedgerStore
import SubLedgerTestSupport
import Testing

/// `subledger audit`: the audit log as a table or JSON, filtered by time and key, a bounded page at a time; and
/// `subledger keys create --scope` for the keys it records.
@Suite struct AuditCommandTests {
    static func run(_ arguments: [String], databaseURL: String) async -> SubLedgerCLI.Run {
        await SubLedgerCLI.run(arguments + ["--database-url", databaseURL, "--log-level", "warning"])
    }

    static func entry(_ name: String, keyID: String, route: String, day: Int64, status: Int) -> AuditLogStore.Entry {
        AuditLogStore.Entry(
            occurredAt: Instant(millisecondsSince1970: 1_735_689_600_000 + day * 86_400_000), keyID: keyID,
            keyName: name, scope: "support", method: "POST", route: route, target: ["id": "MK5TTTVWJH"],
            status: status, clientAddress: "192.0.2.7", requestID: "req-\(day)")
    }

    @Test func auditPrintsWhatKeysDidNewestFirstAsATableOrJSON() async throws {
        try await TestDatabase.withSchema(template: .ledger) { schema, _, pool in
            try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
            let url = SubLedgerCLI.databaseURL(try TestDatabase.connectionString(), schema: schema)

            let created = await Self.run(
                ["keys", "create", "--scope", "support", "--name", "helpdesk"], databaseURL: url)
            #expect(created.status == 0, "\(created.standardError)")
            #expect(created.standardOutput.hasPrefix("sl_support_"))
            let listedKeys = await Self.run(["keys", "list"], databaseURL: url)
            #expect(listedKeys.standardOutput.contains("\tsupport\t-\thelpdesk\t"))
            let wrongScope = await Self.run(["keys", "create", "--scope", "app", "--name", "x"], databaseURL: url)
            #expect(wrongScope.status != 0)

            let audit = AuditLogStore(pool: pool)
            let alice = UUID().uuidString.lowercased()
            let bob = UUID().uuidString.lowercased()
            try await audit.append(
                Self.entry("alice", keyID: alice, route: "/v1/admin/lookup/order/{id}", day: 1, status: 200))
            try await audit.append(
                Self.entry("bob", keyID: bob, route: "/v1/admin/webhooks/{id}/pause", day: 2, status: 403))
            try await audit.append(
                Self.entry("alice", keyID: alice, route: "/v1/admin/lookup/transaction/{id}", day: 3, status: 200))

            let table = await Self.run(["audit"], databaseURL: url)
            #expect(table.status == 0, "\(table.standardError)")
            let lines = table.standardOutput.split(separator: "\n")
            #expect(lines.count == 4)
            #expect(lines.first?.hasPrefix("AUDIT ID\tWHEN\tKEY") == true)
            #expect(
                lines[1].contains(
                    "\t2025-01-04T00:00:00.000Z\talice\t\(alice)\tsupport\tPOST\t/v1/admin/lookup/transaction/{id}\tid=MK5TTTVWJH\t200\t192.0.2.7\treq-3"
                ))
            #expect(lines[3].contains("/v1/admin/lookup/order/{id}"))

            let json = await Self.run(
                ["audit", "--json", "--key", "alice", "--since", "2025-01-03T00:00:00Z"], databaseURL: url)
            #expect(json.status == 0, "\(json.standardError)")
            let page = try #require(
                try JSONSerialization.jsonObject(with: Data(json.standardOutput.utf8)) as? [String: Any])
            let entries = try #require(page["entries"] as? [[String: Any]])
            #expect(entries.map { $0["route"] as? String } == ["/v1/admin/lookup/transaction/{id}"])
            #expect(page["next_before"] is NSNull)

            let byID = await Self.run(["audit", "--key", bob, "--limit", "1"], databaseURL: url)
            #expect(byID.standardOutput.split(separator: "\n").count == 2)
            #expect(byID.standardOutput.contains("\tbob\t"))

            let limited = await Self.run(["audit", "--limit", "2", "--json"], databaseURL: url)
            let limitedPage = try #require(
                try JSONSerialization.jsonObject(with: Data(limited.standardOutput.utf8)) as? [String: Any])
            #expect((limitedPage["entries"] as? [Any])?.count == 2)
            let next = try #require(limitedPage["next_before"] as? Int)
            let older = await Self.run(["audit", "--before", String(next)], databaseURL: url)
            #expect(older.standardOutput.contains("/v1/admin/lookup/order/{id}"))
            #expect(!older.standardOutput.contains("/v1/admin/webhooks/{id}/pause"))

            for bad in [["--limit", "0"], ["--limit", "501"], ["--since", "last week"], ["--before", "0"]] {
                let refused = await Self.run(["audit"] + bad, databaseURL: url)
                #expect(refused.status != 0, "\(bad)")
            }
        }
    }
}
