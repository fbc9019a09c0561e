import Foundation
import SubLedgerTestSupport
import Testing

@testable import SubLedgerStore

/// `subledger serve`'s read replica options: a mistake stops it before it starts, with a message that says which.
@Suite struct ReadReplicaOptionsCommandTests {
    static func serve(_ arguments: [String], environment: [String: String] = [:]) async throws -> (
        status: Int32, output: String
    ) {
        let executable = try SubLedgerExecutable.url()
        let log = NSTemporaryDirectory() + "subledger-serve-\(UUID().uuidString).log"
        defer { try? FileManager.default.removeItem(atPath: log) }
        var variables = ["PATH": ProcessInfo.processInfo.environment["PATH"] ?? ""]
        variables.merge(environment) { _, new in new }
        let fixed = variables
        let status = try await Task.detached {
            try ProgramRunner.spawnAndWait(
                [executable.path, "serve", "--port", "0"] + arguments, outputPath: log, environment: fixed)
        }.value
        return (status, (try? String(contentsOfFile: log, encoding: .utf8)) ?? "")
    }

    static let primary = "postgresql://subledger@db1/ledger"

    @Test func mistakesInTheReadReplicaOptionsStopServeWithAClearMessage() async throws {
        let cases: [(arguments: [String], environment: [String: String], message: String)] = [
            (
                ["--database-url", Self.primary, "--read-database-url", "host=a,b,c port=1,2"], [:],
                "names 3 hosts but 2 ports"
            ),
            (["--database-url", Self.primary, "--read-database-url", "postgresql://%zz"], [:], "--read-database-url"),
            (
                ["--database-url", Self.primary, "--read-database-url", "host=b", "--read-max-lag-ms", "0"], [:],
                "--read-max-lag-ms must be between 1 and 3600000"
            ),
            (
                ["--database-url", Self.primary, "--read-database-url", "host=b", "--read-token-wait-ms", "70000"], [:],
                "--read-token-wait-ms must be between 0 and 60000"
            ),
            (
                ["--database-url", Self.primary],
                ["SUBLEDGER_READ_DATABASE_URL": "host=b", "SUBLEDGER_READ_MAX_LAG_MS": "soon"],
                "SUBLEDGER_READ_MAX_LAG_MS must be a whole number"
            ),
            (["--database-url", Self.primary, "--read-max-lag-ms", "500"], [:], "need --read-database-url"),
            (
                ["--read-database-url", "host=b"], ["SUBLEDGER_DATA_DIR": NSTemporaryDirectory() + "unused-\(UUID())"],
                "needs a configured primary"
            ),
        ]
        for (arguments, environment, message) in cases {
            let result = try await Self.serve(arguments, environment: environment)
            #expect(result.status != 0, "\(arguments)")
            #expect(result.output.contains(message), "\(arguments): \(result.output)")
        }
    }
}
