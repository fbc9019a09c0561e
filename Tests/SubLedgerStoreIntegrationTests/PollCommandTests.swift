import Foundation
import LedgerTestSupport
import SubLedgerTestSupport
import Testing

@testable import SubLedgerStore

/// The real `subledger poll` binary, as cron runs it.
@Suite struct PollCommandTests {
    /// `poll --once` runs one cycle and exits 0 (ServiceLifecycle must not take the job's return as a failure).
    @Test func pollOnceRunsACycleAndExitsZero() async throws {
        try await TestDatabase.withSchema(template: .ledger) { schema, _, pool in
            try await Migrator.bundled(logger: TestDatabase.logger).migrate(pool)
            let executable = try SubLedgerExecutable.url()
            var url = try TestDatabase.connectionString()
            url += (url.contains("?") ? "&" : "?") + "options=-c%20search_path%3D\(schema)"
            let log = NSTemporaryDirectory() + "subledger-poll-\(schema).log"
            defer { try? FileManager.default.removeItem(atPath: log) }
            let status = try await Task.detached {
                try ProgramRunner.spawnAndWait(
                    [executable.path, "poll", "--once", "--log-level", "info"], outputPath: log,
                    environment: ["DATABASE_URL": url, "PATH": ProcessInfo.processInfo.environment["PATH"] ?? ""])
            }.value
            let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            #expect(status == 0, "\(output)")
            #expect(output.contains("poll cycle 1: checked 0"))
        }
    }
}
