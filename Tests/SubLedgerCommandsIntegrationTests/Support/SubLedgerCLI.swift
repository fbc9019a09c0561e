import ArgumentParser
import Foundation
import Synchronization

@testable import SubLedgerCommands

/// Runs `subledger` commands in this process, as the executable would: the same parsing, the same exit codes
/// and error messages, with the environment given and the output kept (`CommandContext`).
enum SubLedgerCLI {
    struct Run: Sendable {
        /// The executable's exit status: 0, or what ArgumentParser maps the error to (64 for a usage error).
        var status: Int32
        var standardOutput: String
        var standardError: String
        /// Both streams in the order they were written, as a terminal (`2>&1`) shows them.
        var output: String
    }

    /// The environment a command sees: `environment` only (nothing of the test process leaks in).
    static func run(_ arguments: [String], environment: [String: String] = [:]) async -> Run {
        let streams = Streams()
        let context = CommandContext(
            environment: environment,
            standardOutput: { streams.append($0, error: false) },
            standardError: { streams.append($0, error: true) })
        let status: Int32 = await CommandContext.$current.withValue(context) {
            do {
                var command = try SubLedgerCommand.parseAsRoot(arguments)
                if var asynchronous = command as? any AsyncParsableCommand {
                    try await asynchronous.run()
                } else {
                    try command.run()
                }
                return 0
            } catch {
                let code = SubLedgerCommand.exitCode(for: error)
                let message = SubLedgerCommand.fullMessage(for: error)
                if !message.isEmpty { streams.append(message + "\n", error: code != .success) }
                return code.rawValue
            }
        }
        return streams.run(status: status)
    }

    /// A database URL for the test's own database (`TestDatabase.connectionString()`) with `schema` first on the
    /// search path.
    static func databaseURL(_ base: String, schema: String) -> String {
        let options = "-c search_path=\(schema)"
        if base.hasPrefix("postgres://") || base.hasPrefix("postgresql://") {
            let encoded = options.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? options
            return base + (base.contains("?") ? "&" : "?") + "options=" + encoded
        }
        return base + " options='\(options)'"
    }

    private final class Streams: Sendable {
        private let state = Mutex<(output: String, error: String, both: String)>(("", "", ""))

        func append(_ text: String, error: Bool) {
            state.withLock { state in
                if error { state.error += text } else { state.output += text }
                state.both += text
            }
        }

        func run(status: Int32) -> Run {
            state.withLock { Run(status: status, standardOutput: $0.output, standardError: $0.error, output: $0.both) }
        }
    }
}
