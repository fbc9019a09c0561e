import Foundation
import LedgerTestSupport
import SubLedgerStore
import SubLedgerTestSupport
import Testing

/// `subledger import` refuses bad input with a clear message and a non-zero status.
@Suite struct ImportCommandTests {
    /// Runs `subledger import ARGUMENTS` against a migrated schema; returns the status and the output.
    static func run(_ arguments: [String]) async throws -> (status: Int32, output: String) {
        try await TestDatabase.withSchema(template: .ledger) { schema, _, pool in
            try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
            let url = SubLedgerCLI.databaseURL(try TestDatabase.connectionString(), schema: schema)
            let run = await SubLedgerCLI.run(["import"] + arguments, environment: ["DATABASE_URL": url])
            return (run.status, run.output)
        }
    }

    static func file(_ text: String) throws -> String {
        let path = NSTemporaryDirectory() + "subledger-import-\(UUID().uuidString).csv"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test func badCommandLinesAreRefusedWithClearErrors() async throws {
        let good = try Self.file("account_id,original_transaction_id,receipt_data,environment\nalice,1,,Sandbox\n")
        let headerless = try Self.file("alice,1,,Sandbox\n")
        defer {
            try? FileManager.default.removeItem(atPath: good)
            try? FileManager.default.removeItem(atPath: headerless)
        }
        let cases: [([String], String)] = [
            (["/nonexistent/subscribers.csv", "--app", "com.example.one"], "no file at /nonexistent/subscribers.csv"),
            ([good, "--app", "com.example.one", "--concurrency", "0"], "--concurrency must be 1 to 64"),
            ([good, "--app", "com.example.one", "--rate", "0"], "--rate must be above 0"),
            ([good], "Missing expected argument '--app <app>'"),
            (
                [headerless, "--app", "com.example.one"],
                "the header must name the columns account_id,original_transaction_id,receipt_data,environment"
            ),
            ([good, "--app", "com.example.nope"], "no app com.example.nope is configured"),
        ]
        for (arguments, message) in cases {
            let (status, output) = try await Self.run(arguments)
            #expect(status != 0, "\(arguments)")
            #expect(output.contains(message), "\(arguments): \(output)")
        }
    }
}
