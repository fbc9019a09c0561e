import Foundation

/// What a command reads and writes besides its arguments: the environment, standard output and standard error.
/// The process's own by default; a test runs a command in-process with its own (`CommandContext.$current`).
public struct CommandContext: Sendable {
    public var environment: [String: String]
    public var standardOutput: @Sendable (String) -> Void
    public var standardError: @Sendable (String) -> Void

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
        CommandContext(
            environment: CommandContext.current.environment,
            standardOutput: { FileHandle.standardOutput.write(Data($0.utf8)) },
            standardError: { FileHandle.standardError.write(Data($0.utf8)) })
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
