import Foundation
import SubLedgerTestSupport
import Testing

@testable import SubLedgerStore

/// The real `subledger notifications recover` binary refuses bad arguments before touching any database.
@Suite struct NotificationsCommandTests {
    @Test(arguments: [
        (["--since", "last tuesday"], "must be an RFC 3339 time"),
        (["--since", "2999-01-01T00:00:00Z"], "is in the future"),
        (["--since", "2001-01-01T00:00:00Z"], "older than the 180 days Apple keeps notification history"),
        (["--environment", "Xcode"], "must be Production or Sandbox"),
    ])
    func badArgumentsGetAClearErrorAndExitCode64(_ arguments: [String], _ message: String) async throws {
        let executable = try SubLedgerExecutable.url()
        let log = NSTemporaryDirectory() + "subledger-recover-\(UUID().uuidString).log"
        defer { try? FileManager.default.removeItem(atPath: log) }
        let status = try await Task.detached {
            try ProgramRunner.spawnAndWait(
                [executable.path, "notifications", "recover"] + arguments, outputPath: log,
                // A database that does not exist: validation must refuse before any connection is tried.
                environment: [
                    "DATABASE_URL": "postgresql://127.0.0.1:9/none",
                    "PATH": ProcessInfo.processInfo.environment["PATH"] ?? "",
                ])
        }.value
        let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(status == 64, "\(output)")
        #expect(output.contains(message), "\(output)")
    }
}
