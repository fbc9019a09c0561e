import ArgumentParser
import Foundation
import Logging
import SubLedgerUseCases

extension SubLedgerCommand {
    /// Runs the command `arguments` name in the current `CommandContext` and returns its exit status, as
    /// ArgumentParser's `main` does but for the error that ends a failing command: with `--log-format json` (or
    /// `SUBLEDGER_LOG_FORMAT=json`) it is written as a log record, one JSON line (`CommandFailure`), so that a
    /// collector parsing the process's standard error reads it like every other line.
    public static func execute(_ arguments: [String]) async -> Int32 {
        do {
            var command = try await asyncParseAsRoot(arguments)
            if var asynchronous = command as? any AsyncParsableCommand {
                try await asynchronous.run()
            } else {
                try command.run()
            }
            return ExitCode.success.rawValue
        } catch {
            let status = exitCode(for: error)
            let context = CommandContext.current
            if status != .success,
                CommandFailure.logFormat(arguments: arguments, environment: context.environment) == .json
            {
                context.standardError(CommandFailure.line(message: message(for: error), status: status.rawValue))
            } else {
                // ArgumentParser's own output: help on standard output, an error with its usage on standard error.
                let text = fullMessage(for: error)
                if !text.isEmpty {
                    (status == .success ? context.standardOutput : context.standardError)(text + "\n")
                }
            }
            return status.rawValue
        }
    }
}

/// The error that ends a failing command, written as a log record when the log is JSON.
enum CommandFailure {
    /// The record: level `critical`, label `subledger`, the error's message and the exit status.
    static func line(message: String, status: Int32, at timestamp: Date = Date()) -> String {
        JSONLogHandler.line(
            timestamp: timestamp, level: .critical, label: "subledger", message: message,
            metadata: ["exit_status": .stringConvertible(status)])
    }

    /// The log format the command line asks for: the last `--log-format VALUE` or `--log-format=VALUE` before a
    /// `--`, else `SUBLEDGER_LOG_FORMAT`, else `text`. Read from the words themselves, so that a command refused
    /// before its options are parsed (a usage error) still answers in the format asked for; a format that is not
    /// one is `text` here (the command itself refuses it).
    static func logFormat(arguments: [String], environment: [String: String]) -> LogFormat {
        var asked: String?
        var words = arguments[...]
        while let word = words.popFirst(), word != "--" {
            if word == "--log-format" {
                asked = words.popFirst()
            } else if word.hasPrefix("--log-format=") {
                asked = String(word.dropFirst("--log-format=".count))
            }
        }
        let text = asked ?? environment[EnvironmentVariable.logFormat] ?? ""
        return LogFormat(rawValue: text.lowercased()) ?? .text
    }
}
