import ArgumentParser
import Foundation
import SubLedgerStore
import SubLedgerUseCases

/// `subledger migrate`: applies the schema steps (`migrations/`) the database lacks; with `--distribute`, then
/// places the tables on the Citus cluster whose coordinator the database is.
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract:
            "Apply the schema's migrations to the database (idempotent; safe to run from several processes at once).")

    @OptionGroup var database: DatabaseOptions

    @Flag(
        help: """
            On a Citus coordinator (workers added), then create the reference and distributed tables as each \
            table's 'citus:' comment says (idempotent; Citus moves rows already there). Refused on a plain PostgreSQL.
            """)
    var distribute = false

    @Option(help: "With --distribute: shards per newly distributed table (Citus's citus.shard_count, default 32).")
    var shardCount: Int?

    func validate() throws {
        if let shardCount {
            guard distribute else { throw ValidationError("--shard-count goes with --distribute") }
            guard (1...64_000).contains(shardCount) else { throw ValidationError("--shard-count must be 1...64000") }
        }
    }

    func run() async throws {
        var configuration = ServiceConfiguration()
        try database.apply(to: &configuration, environment: CommandContext.current.environment)
        let logger = makeLogger("subledger.migrate", level: configuration.logLevel)
        let opened = try await DatabaseBootstrap.open(configuration, poolSize: 2, logger: logger)
        do {
            // The migrator's advisory lock is a session's: behind a transaction pooler, the direct connection.
            let report = try await Migrator.bundled(logger: logger).migrate(try opened.sessionPool(for: "migrate"))
            if report.applied.isEmpty {
                printOutput("schema is current (version \(report.version))")
            } else {
                printOutput(
                    "applied step(s) \(report.applied.map(String.init).joined(separator: ", ")); schema version \(report.version)"
                )
            }
            if distribute {
                let placements = try await CitusDistribution.distribute(
                    try opened.sessionPool(for: "migrate"), shardCount: shardCount)
                for placement in placements {
                    let column = placement.column.map { " by \($0)" } ?? ""
                    printOutput(
                        "\(placement.table): \(placement.kind)\(column) (colocation group \(placement.colocationGroup))"
                    )
                }
            }
        } catch {
            await opened.close()
            throw error
        }
        await opened.close()
    }
}
