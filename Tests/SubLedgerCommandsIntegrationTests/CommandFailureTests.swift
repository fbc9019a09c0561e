import Foundation
import Synchronization
import Testing

@testable import SubLedgerCommands

/// The error that ends a failing command: with `--log-format json` one JSON line like every other log record,
/// otherwise ArgumentParser's text.
@Suite struct CommandFailureTests {
    /// Runs `subledger ARGUMENTS` through the executable's entry (`SubLedgerCommand.execute`) with `environment`,
    /// and returns the exit status, standard output and standard error.
    static func execute(_ arguments: [String], environment: [String: String] = [:]) async -> (
        status: Int32, output: String, error: String
    ) {
        let streams = Mutex<(output: String, error: String)>(("", ""))
        let context = CommandContext(
            environment: environment, standardOutput: { text in streams.withLock { $0.output += text } },
            standardError: { text in streams.withLock { $0.error += text } })
        let status = await CommandContext.$current.withValue(context) { await SubLedgerCommand.execute(arguments) }
        return streams.withLock { (status, $0.output, $0.error) }
    }

    /// Nothing listens on port 1 of the loopback: the connection is refused at once.
    static let unreachable = ["--database-url", "postgresql://u:secret-password@127.0.0.1:1/x"]

    @Test func aFailingCommandsErrorIsOneJSONLineWithLogFormatJSON() async throws {
        for (arguments, environment) in [
            (["migrate", "--log-format", "json"] + Self.unreachable, [:]),
            (["migrate", "--log-format=json"] + Self.unreachable, [:]),
            (["migrate"] + Self.unreachable, ["SUBLEDGER_LOG_FORMAT": "json"]),
        ] {
            let run = await Self.execute(arguments, environment: environment)
            #expect(run.status == 1, "\(arguments)")
            #expect(run.output.isEmpty)
            let lines = run.error.split(separator: "\n", omittingEmptySubsequences: false)
            #expect(lines.count == 2 && lines.last == "", "one line, ended: \(run.error)")
            let record = try LogFormatTests.object(run.error)
            #expect(record["level"] as? String == "critical")
            #expect(record["label"] as? String == "subledger")
            #expect(record["exit_status"] as? String == "1")
            let message = try #require(record["message"] as? String)
            #expect(message.contains("127.0.0.1") && message.contains("port 1"), "\(message)")
            #expect(!message.hasPrefix("Error:"))
            #expect(!run.error.contains("secret-password"))
            #expect((record["timestamp"] as? String)?.hasSuffix("Z") == true, "\(record)")
        }
    }

    @Test func aUsageErrorIsAJSONLineTooWithItsExitStatus() async throws {
        let run = await Self.execute(["migrate", "--log-format", "json", "--shard-count", "4"])
        #expect(run.status == 64)
        let record = try LogFormatTests.object(run.error)
        #expect(record["message"] as? String == "--shard-count goes with --distribute")
        #expect(record["exit_status"] as? String == "64")
    }

    @Test func withoutJSONTheErrorAndHelpAreArgumentParsersText() async throws {
        let failed = await Self.execute(["migrate"] + Self.unreachable)
        #expect(failed.status == 1)
        #expect(failed.error.hasPrefix("Error: "), "\(failed.error)")
        #expect(failed.error.contains("port 1"))
        // Asked for help, even with json: the help, on standard output.
        let help = await Self.execute(["migrate", "--log-format", "json", "--help"])
        #expect(help.status == 0)
        #expect(help.output.contains("USAGE: subledger migrate"), "\(help.output)")
        #expect(help.error.isEmpty)
    }

    @Test func theFormatIsTheLastAskedForBeforeTheEndOfOptions() {
        func format(_ arguments: [String], _ environment: [String: String] = [:]) -> LogFormat {
            CommandFailure.logFormat(arguments: arguments, environment: environment)
        }
        #expect(format(["serve"]) == .text)
        #expect(format(["serve", "--log-format", "JSON"]) == .json)
        #expect(format(["serve", "--log-format", "json", "--log-format=text"]) == .text)
        #expect(format(["serve", "--log-format", "text"], ["SUBLEDGER_LOG_FORMAT": "json"]) == .text)
        #expect(format(["serve"], ["SUBLEDGER_LOG_FORMAT": "json"]) == .json)
        #expect(format(["inspect", "--", "--log-format", "json"]) == .text)
        #expect(format(["serve", "--log-format", "yaml"]) == .text)
        #expect(format(["serve", "--log-format"]) == .text)
    }
}
