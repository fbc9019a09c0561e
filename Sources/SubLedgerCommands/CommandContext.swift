import Foundation
import Logging

/// What a command reads and writes besides its arguments: the environment, standard output and standard error.
/// The process's own by default; a test runs a command in-process with its own (`CommandContext.$current`).
public struct CommandContext: Sendable {
    public var environment: [String: String]
    public var standardOutput: @Sendable (String) -> Void
    public var standardError: @Sendable (String) -> Void
    /// Whether this is the process's own context: its commands log through swift-log's default handler.
    /// Otherwise their logs go to `standardError` (a test reads them there).
    public var isProcess = false

    public init(
        environment: [String: String], standardOutput: @escaping @Sendable (String) -> Void,
        standardError: @escaping @Sendable (String) -> Void
    ) {
        self.environment = environment
        self.standardOutput = standardOutput
        self.standardError = standardError
    }

    /// The process's environment and file descriptors 1 and 2 (unbuffered, so output and errors keep their order).
    public static var process: CommandContext {
        var context = CommandContext(
            environment: ProcessInfo.processInfo.environment,
            standardOutput: { FileHandle.standardOutput.write(Data($0.utf8)) },
            standardError: { FileHandle.standardError.write(Data($0.utf8)) })
        context.isProcess = true
        return context
    }

    @TaskLocal public static var current: CommandContext = .process
}

/// Writes `text` and then `terminator` to the command's standard output.
func printOutput(_ text: String, terminator: String = "\n") {
    CommandContext.current.standardOutput(text + terminator)
}

/// Writes `text` and then `terminator` to the command's standard error.
func printError(_ text: String, terminator: String = "\n") {
    CommandContext.current.standardError(text + terminator)
}

/// A command's logger at `level`: swift-log's handler in the process's context, else lines on the context's
/// standard error.
func makeLogger(_ label: String, level: Logger.Level) -> Logger {
    let context = CommandContext.current
    var logger =
        context.isProcess
        ? Logger(label: label)
        : Logger(label: label) { label in ContextLogHandler(label: label, write: context.standardError) }
    logger.logLevel = level
    return logger
}

/// Writes each record as one line, `LEVEL label: message key=value…`, to a command context's standard error.
struct ContextLogHandler: LogHandler {
    let label: String
    let write: @Sendable (String) -> Void
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        let merged = metadata.merging(event.metadata ?? [:]) { _, new in new }
        let fields = merged.keys.sorted().map { key in " \(key)=\(merged[key].map { "\($0)" } ?? "")" }.joined()
        write("\(event.level) \(label): \(event.message)\(fields)\n")
    }
}
