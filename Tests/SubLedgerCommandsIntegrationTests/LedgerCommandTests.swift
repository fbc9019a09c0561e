import LedgerTestSupport
import SubLedgerStore
import SubLedgerTestSupport
import Testing

/// `subledger ledger verify`.
@Suite struct LedgerCommandTests {
    typealias F = LedgerFixtures

    /// `subledger ledger verify`: exit 0 on the untouched ledger, 1 naming the row once one is changed.
    @Test func theCommandExitsNonZeroAndNamesTheRow() async throws {
        try await TestDatabase.withSchema(template: .ledger) { schema, _, pool in
            try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
            let store = LedgerStore(pool: pool)
            let app = try await F.app(on: store.pool)
            try await FilledLedger.fill(store, app)
            let url = SubLedgerCLI.databaseURL(try TestDatabase.connectionString(), schema: schema)
            func verify(_ arguments: [String]) async -> (status: Int32, output: String) {
                let run = await SubLedgerCLI.run(
                    ["ledger", "verify"] + arguments,
                    environment: [
                        "DATABASE_URL": url,
                        "SUBLEDGER_SECRET_KEY": F.secretKeys.keys.map(\.base64).joined(separator: ","),
                    ])
                return (run.status, run.output)
            }
            let clean = await verify(["--app", F.bundleID])
            #expect(clean.status == 0, "\(clean.output)")
            #expect(clean.output.contains("checked 3 chain(s)"), "\(clean.output)")

            let extend = try await pool.query(
                "SELECT max(entry_id) FROM ledger_entries WHERE original_transaction_id = 'alice-sub'"
            ).single().decode(Int64.self, at: 0)
            try await FilledLedger.behindItsBack(
                pool, "UPDATE ledger_entries SET account_id = 'bob' WHERE entry_id = \(extend)")
            let tampered = await verify([])
            #expect(tampered.status == 1, "\(tampered.output)")
            #expect(
                tampered.output.contains(
                    "MISMATCH: first: ledger_entries \(extend) (chain \(F.bundleID) Production alice-sub"),
                "\(tampered.output)")
            let bad = await verify(["--since", "last tuesday"])
            #expect(bad.status == 64, "\(bad.output)")
        }
    }
}
