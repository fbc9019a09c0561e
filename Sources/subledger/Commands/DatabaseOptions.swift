import ArgumentParser
import Foundation
import Logging
import PostgresLibPQ
import SubLedgerService
import SubLedgerStore

/// Where the database is: flags, else environment, else the embedded cluster.
struct DatabaseOptions: ParsableArguments {
    @Option(
        name: .customLong("database-url"),
        help: "libpq URL or conninfo (env DATABASE_URL). Unset: the embedded cluster under --data-dir.")
    var databaseURL: String?

    @Option(name: .customLong("data-dir"), help: "Local state folder (env SUBLEDGER_DATA_DIR, default .subledger).")
    var dataDirectory: String?

    @Option(name: .customLong("pool-size"), help: "Most database connections (env SUBLEDGER_DB_POOL_SIZE, default 10).")
    var poolSize: Int?

    @Option(name: .customLong("log-level"), help: "trace|debug|info|notice|warning|error|critical (env SUBLEDGER_LOG_LEVEL, default info).")
    var logLevel: String?

    /// Applies these options, then the environment, over `configuration`.
    func apply(to configuration: inout ServiceConfiguration, environment: [String: String]) throws {
        if let url = databaseURL ?? environment[EnvironmentVariable.databaseURL], !url.isEmpty {
            configuration.databaseURL = url
        }
        if let directory = dataDirectory ?? environment[EnvironmentVariable.dataDirectory], !directory.isEmpty {
            configuration.dataDirectory = directory
        }
        if let size = try poolSize ?? environment[EnvironmentVariable.databasePoolSize].map({ try parseInt($0, EnvironmentVariable.databasePoolSize) }) {
            guard (1...1000).contains(size) else { throw ValidationError("the pool size must be between 1 and 1000") }
            configuration.databasePoolSize = size
        }
        if let level = logLevel ?? environment[EnvironmentVariable.logLevel] {
            guard let parsed = Logger.Level(rawValue: level.lowercased()) else {
                throw ValidationError("unknown log level '\(level)'")
            }
            configuration.logLevel = parsed
        }
    }
}

func parseInt(_ text: String, _ name: String) throws -> Int {
    guard let value = Int(text) else { throw ValidationError("\(name) must be a whole number, not '\(text)'") }
    return value
}

/// A logger for command-line use at `level`.
func makeLogger(_ label: String, level: Logger.Level) -> Logger {
    var logger = Logger(label: label)
    logger.logLevel = level
    return logger
}

/// Opens the database these options name (migrating an embedded one), runs `body`, and closes it.
func withDatabase<T: Sendable>(
    _ options: DatabaseOptions, _ body: (PostgresPool) async throws -> T
) async throws -> T {
    var configuration = ServiceConfiguration()
    try options.apply(to: &configuration, environment: ProcessInfo.processInfo.environment)
    let logger = makeLogger("subledger", level: configuration.logLevel)
    let opened = try await DatabaseBootstrap.open(
        url: configuration.databaseURL, dataDirectory: configuration.dataDirectory, poolSize: 2, logger: logger)
    do {
        if opened.isEmbedded { try await Migrator.bundled(logger: logger).migrate(opened.pool) }
        let result = try await body(opened.pool)
        await opened.close()
        return result
    } catch {
        await opened.close()
        throw error
    }
}
