import ArgumentParser
import Foundation
import SubLedgerStore
import SubLedgerUseCases

/// `subledger migrate`: applies the schema steps (`migrations/`) the database lacks.
struct MigrateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "migrate",
        abstract:
            "Apply the schema's migrations to the database (idempotent; safe to run from several processes at once).")

    @OptionGroup var database: DatabaseOptions

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
        } catch {
            await opened.close()
            throw error
        }
        await opened.close()
    }
}
