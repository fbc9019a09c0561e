import ArgumentParser
import SubLedgerUseCases

/// `serve`'s read replicas: `--read-database-url` and its bounds (docs/guides/scale-out.md, "Read replicas").
struct ReadReplicaOptions: ParsableArguments {
    @Option(
        name: .customLong("read-database-url"),
        help: """
            libpq URL or conninfo of one or more hot standbys (multi-host syntax) that answer reads while their \
            lag is within --read-max-lag-ms (env SUBLEDGER_READ_DATABASE_URL). Unset: the primary answers all.
            """)
    var readDatabaseURL: String?

    @Option(
        name: .customLong("read-max-lag-ms"),
        help: "Measured replay lag above which a standby answers no read (env SUBLEDGER_READ_MAX_LAG_MS, default 1000)."
    )
    var maximumLag: Int?

    @Option(
        name: .customLong("read-token-wait-ms"),
        help: """
            How long a read with a consistency token waits for a standby to replay it before the primary answers \
            (env SUBLEDGER_READ_TOKEN_WAIT_MS, default 250).
            """)
    var tokenWait: Int?

    @Option(
        name: .customLong("read-pool-size"),
        help: "Connections to each standby (env SUBLEDGER_READ_POOL_SIZE, default: --pool-size).")
    var poolSize: Int?

    /// Applies these options, then the environment, over `configuration` (after the database options).
    func apply(to configuration: inout ServiceConfiguration, environment: [String: String]) throws {
        func value(_ flag: Int?, _ variable: String) throws -> Int? {
            try flag ?? environment[variable].flatMap { $0.isEmpty ? nil : $0 }.map { try parseInt($0, variable) }
        }
        let maximumLag = try value(self.maximumLag, EnvironmentVariable.readMaximumLag)
        let tokenWait = try value(self.tokenWait, EnvironmentVariable.readTokenWait)
        let poolSize = try value(self.poolSize, EnvironmentVariable.readPoolSize)
        guard let url = readDatabaseURL ?? environment[EnvironmentVariable.readDatabaseURL], !url.isEmpty else {
            if maximumLag != nil || tokenWait != nil || poolSize != nil {
                throw ValidationError(
                    "the read replica options need --read-database-url (or SUBLEDGER_READ_DATABASE_URL)")
            }
            return
        }
        guard configuration.databaseURL != nil else {
            throw ValidationError("--read-database-url needs a configured primary (--database-url or DATABASE_URL)")
        }
        var replicas = ReadReplicaConfiguration(url: url)
        replicas.poolSize = configuration.databasePoolSize
        if let maximumLag {
            guard (1...3_600_000).contains(maximumLag) else {
                throw ValidationError("--read-max-lag-ms must be between 1 and 3600000")
            }
            replicas.maximumLag = .milliseconds(maximumLag)
        }
        if let tokenWait {
            guard (0...60_000).contains(tokenWait) else {
                throw ValidationError("--read-token-wait-ms must be between 0 and 60000")
            }
            replicas.tokenWait = .milliseconds(tokenWait)
        }
        if let poolSize {
            guard (1...1000).contains(poolSize) else {
                throw ValidationError("--read-pool-size must be between 1 and 1000")
            }
            replicas.poolSize = poolSize
        }
        // The URL itself is checked here, so a typo stops `serve` before it starts.
        do {
            _ = try replicas.standbys()
        } catch {
            throw ValidationError("--read-database-url: \(error)")
        }
        configuration.readReplicas = replicas
    }
}
