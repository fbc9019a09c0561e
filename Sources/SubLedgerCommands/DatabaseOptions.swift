import ArgumentParser
import Foundation
import Logging
import PostgresLibPQ
import SubLedgerStore
import SubLedgerUseCases

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

    @Option(
        name: .customLong("database-pooler"),
        help:
            "none|pgbouncer-transaction: what stands between the database URL and PostgreSQL (env SUBLEDGER_DATABASE_POOLER, default none)."
    )
    var databasePooler: String?

    @Option(
        name: .customLong("direct-database-url"),
        help:
            "libpq URL reaching PostgreSQL directly, for LISTEN and migrations behind a transaction pooler (env SUBLEDGER_DIRECT_DATABASE_URL)."
    )
    var directDatabaseURL: String?

    @Option(
        name: .customLong("log-level"),
        help: "trace|debug|info|notice|warning|error|critical (env SUBLEDGER_LOG_LEVEL, default info).")
    var logLevel: String?

    @Option(
        name: .customLong("log-format"),
        help: "text|json: swift-log's lines, or one JSON object a line (env SUBLEDGER_LOG_FORMAT, default text).")
    var logFormat: String?

    @Option(
        name: .customLong("secret-key-file"),
        help: """
            File of secret keys sealing the apps' secrets, base64, newest first (env SUBLEDGER_SECRET_KEY_FILE, \
            or the keys in SUBLEDGER_SECRET_KEY). Unset with the embedded cluster: <data-dir>/secret.key, \
            created when absent.
            """)
    var secretKeyFile: String?

    /// Applies these options, then the environment, over `configuration`: the connection, then the secret keys.
    func apply(to configuration: inout ServiceConfiguration, environment: [String: String]) throws {
        try applyConnection(to: &configuration, environment: environment)
        try applySecretKeys(to: &configuration, environment: environment)
    }

    /// Applies every option but the secret keys (which, with the embedded cluster, may create the key file: a
    /// command checks the rest of its configuration before that).
    func applyConnection(to configuration: inout ServiceConfiguration, environment: [String: String]) throws {
        if let url = databaseURL ?? environment[EnvironmentVariable.databaseURL], !url.isEmpty {
            configuration.databaseURL = url
        }
        if let text = databasePooler ?? environment[EnvironmentVariable.databasePooler], !text.isEmpty {
            guard let pooler = DatabasePooler(setting: text) else {
                let known = DatabasePooler.allCases.map(\.rawValue).joined(separator: ", ")
                throw ValidationError(
                    "unknown database pooler '\(text)' (\(EnvironmentVariable.databasePooler)): use one of \(known)")
            }
            configuration.databasePooler = pooler
        }
        if let url = directDatabaseURL ?? environment[EnvironmentVariable.directDatabaseURL], !url.isEmpty {
            configuration.directDatabaseURL = url
        }
        if let text = environment[EnvironmentVariable.readinessThreads], !text.isEmpty {
            let threads = try parseInt(text, EnvironmentVariable.readinessThreads)
            guard (1...PostgresReadiness.maximumThreadCount).contains(threads) else {
                throw ValidationError(
                    "\(EnvironmentVariable.readinessThreads) must be between 1 and \(PostgresReadiness.maximumThreadCount)"
                )
            }
            configuration.databaseReadinessThreads = threads
        }
        if let directory = dataDirectory ?? environment[EnvironmentVariable.dataDirectory], !directory.isEmpty {
            configuration.dataDirectory = directory
        }
        if let size = try poolSize
            ?? environment[EnvironmentVariable.databasePoolSize].map({
                try parseInt($0, EnvironmentVariable.databasePoolSize)
            })
        {
            guard (1...1000).contains(size) else { throw ValidationError("the pool size must be between 1 and 1000") }
            configuration.databasePoolSize = size
        }
        if let level = logLevel ?? environment[EnvironmentVariable.logLevel] {
            guard let parsed = Logger.Level(rawValue: level.lowercased()) else {
                throw ValidationError("unknown log level '\(level)'")
            }
            configuration.logLevel = parsed
        }
        let format = try logFormat(environment: environment)
        // In the process's own context every logger made from here on writes this format (a test's context keeps
        // its own lines).
        if CommandContext.current.isProcess { ProcessLogFormat.install(format) }
    }

    /// The log format of `--log-format`, else `SUBLEDGER_LOG_FORMAT`, else `text`; an unknown one is refused.
    func logFormat(environment: [String: String]) throws -> LogFormat {
        guard let text = logFormat ?? environment[EnvironmentVariable.logFormat], !text.isEmpty else { return .text }
        guard let format = LogFormat(rawValue: text.lowercased()) else {
            let known = LogFormat.allCases.map(\.rawValue).joined(separator: ", ")
            throw ValidationError(
                "unknown log format '\(text)' (--log-format, \(EnvironmentVariable.logFormat)): use one of \(known)")
        }
        return format
    }

    /// Applies the secret keys of these options and the environment (`secretKeys`).
    func applySecretKeys(to configuration: inout ServiceConfiguration, environment: [String: String]) throws {
        configuration.secretKeys = try Self.secretKeys(
            file: secretKeyFile, environment: environment,
            embeddedDataDirectory: configuration.databaseURL == nil ? configuration.dataDirectory : nil)
    }

    /// The secret keys: from `--secret-key-file`, else `SUBLEDGER_SECRET_KEY_FILE` or `SUBLEDGER_SECRET_KEY`
    /// (not both), else, with the embedded cluster, `secret.key` in the data folder (created when absent),
    /// else none. A source that is named but unreadable or malformed is an error, never "no keys".
    static func secretKeys(
        file flag: String?, environment: [String: String], embeddedDataDirectory: String?
    ) throws -> SecretKeyring {
        func nonEmpty(_ name: String) -> String? { environment[name].flatMap { $0.isEmpty ? nil : $0 } }
        let file = flag ?? nonEmpty(EnvironmentVariable.secretKeyFile)
        let inline = flag == nil ? nonEmpty(EnvironmentVariable.secretKey) : nil
        switch (file, inline) {
        case (.some, .some):
            throw SecretError(
                .conflictingKeySources,
                "set either \(EnvironmentVariable.secretKeyFile) or \(EnvironmentVariable.secretKey), not both")
        case (let file?, nil):
            return try SecretKeyFile.read(file)
        case (nil, let text?):
            return try SecretKeyring.parse(text, source: EnvironmentVariable.secretKey)
        case (nil, nil):
            guard let directory = embeddedDataDirectory else { return SecretKeyring() }
            let path = directory + "/secret.key"
            let (keyring, created) = try SecretKeyFile.readOrCreate(path)
            if created {
                printError(
                    "subledger: created the secret key file \(path); the apps' secrets cannot be read without it")
            }
            return keyring
        }
    }
}

func parseInt(_ text: String, _ name: String) throws -> Int {
    guard let value = Int(text) else { throw ValidationError("\(name) must be a whole number, not '\(text)'") }
    return value
}

/// A logger for command-line use at `level`.
/// Opens the database these options name (migrating an embedded one), checks it as `serve` does, runs `body`,
/// and closes it.
func withDatabase<T: Sendable>(
    _ options: DatabaseOptions, _ body: (PostgresPool) async throws -> T
) async throws -> T {
    try await withStores(options) { stores in try await body(stores.pool) }
}

/// Opens the database these options name (migrating an embedded one), checks its pooler, schema version and
/// secret keys as `serve` does (`DatabaseReadiness`; the keys only when `checkingSecretKeys`), runs `body` with
/// its stores, holding the configured secret keys, and closes it.
func withStores<T: Sendable>(
    _ options: DatabaseOptions, checkingSecretKeys: Bool = true, _ body: (CommandStores) async throws -> T
) async throws -> T {
    var configuration = ServiceConfiguration()
    try options.apply(to: &configuration, environment: CommandContext.current.environment)
    let logger = makeLogger("subledger", level: configuration.logLevel)
    let opened = try await DatabaseBootstrap.open(configuration, poolSize: 2, logger: logger)
    do {
        let migrator = try Migrator.bundled(logger: logger)
        if opened.isEmbedded { try await migrator.migrate(opened.pool) }
        let stores = CommandStores(pool: opened.pool, secretKeys: configuration.secretKeys, logger: logger)
        try await DatabaseReadiness.check(
            stores.secrets, pooler: opened.pooler, migrator: migrator, checkingSecretKeys: checkingSecretKeys)
        let result = try await body(stores)
        await opened.close()
        return result
    } catch {
        await opened.close()
        throw error
    }
}
