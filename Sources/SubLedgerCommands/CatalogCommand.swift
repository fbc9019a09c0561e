import ArgumentParser
import CatalogFile
import Foundation
import SubLedgerStore
import SubLedgerUseCases

/// `subledger catalog apply FILE`: stores apps, products and entitlements from a JSON or YAML file.
struct CatalogCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "catalog",
        abstract: "Manage the product catalog.",
        subcommands: [Apply.self])

    struct Apply: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "apply",
            abstract: "Store the apps and products of a catalog file (JSON or YAML); see docs/reference/catalog.md.")

        @Argument(help: "The catalog file, or - for standard input.")
        var file: String

        @Flag(
            name: .customLong("allow-plaintext-secrets"),
            help: "Store secrets unsealed when no secret key is configured (insecure; docs/guides/operate.md).")
        var allowPlaintextSecrets = false

        @OptionGroup var database: DatabaseOptions

        func run() async throws {
            let text: String
            if file == "-" {
                text = String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self)
            } else {
                guard let data = FileManager.default.contents(atPath: file) else {
                    throw ValidationError("cannot read \(file)")
                }
                text = String(decoding: data, as: UTF8.self)
            }
            let directory = file == "-" ? "." : URL(fileURLWithPath: file).deletingLastPathComponent().path
            let (catalog, secrets) = try CatalogFile.read(
                text, directory: directory, sections: try StoreModules.catalogSections())
            var configuration = ServiceConfiguration()
            try database.apply(to: &configuration, environment: CommandContext.current.environment)
            let logger = makeLogger("subledger.catalog", level: configuration.logLevel)
            let opened = try await DatabaseBootstrap.open(configuration, poolSize: 2, logger: logger)
            do {
                let migrator = try Migrator.bundled(logger: logger)
                if opened.isEmbedded { try await migrator.migrate(opened.pool) }
                try await DatabaseReadiness.check(
                    SecretStore(pool: opened.pool, secretKeys: configuration.secretKeys, logger: logger),
                    pooler: opened.pooler, migrator: migrator)
                let store = CatalogStore(pool: opened.pool, secretKeys: configuration.secretKeys)
                let report = try await store.applyCatalog(
                    catalog, secrets: secrets, allowingPlaintextSecrets: allowPlaintextSecrets)
                printOutput(
                    "applied \(report.apps.count) app(s) (\(report.apps.joined(separator: ", "))), \(report.products) product(s)"
                )
            } catch {
                await opened.close()
                throw error
            }
            await opened.close()
        }
    }
}
