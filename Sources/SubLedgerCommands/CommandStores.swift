import ArgumentParser
import Foundation
import Logging
import PostgresLibPQ
import SubLedgerStore
import SubLedgerUseCases

/// The stores of the database a command opened, each on its one pool, with the configured secret keys.
struct CommandStores: Sendable {
    let pool: PostgresPool
    /// The configured keys that seal and open the stored secrets; empty: none.
    let secretKeys: SecretKeyring
    let logger: Logger

    /// The ledger: apply, stored inputs, chain verification.
    var ledger: LedgerStore { LedgerStore(pool: pool) }
    /// The apps and their catalogs, their secrets opened with `secretKeys`.
    var catalog: CatalogStore { CatalogStore(pool: pool, secretKeys: secretKeys) }
    /// Secrets at rest: their status, re-sealing, redaction.
    var secrets: SecretStore { SecretStore(pool: pool, secretKeys: secretKeys, logger: logger) }
    /// Exchange rates, tax rates, Small Business Program periods.
    var revenueSettings: RevenueSettingsStore { RevenueSettingsStore(pool: pool) }
}

/// Opens the configured database (migrating an embedded one), checks it as `serve` does (`DatabaseReadiness`),
/// runs `body` with its stores, and closes it; a `StoreError` becomes a `ValidationError`: the shared shape of
/// the revenue settings commands (`fx`, `tax`, `apps`) and of `inputs`, `ledger` and `notifications test`.
func withStores<T: Sendable>(
    _ database: DatabaseOptions, label: String, _ body: (CommandStores) async throws -> T
) async throws -> T {
    var configuration = ServiceConfiguration()
    try database.apply(to: &configuration, environment: CommandContext.current.environment)
    let logger = makeLogger(label, level: configuration.logLevel)
    let opened = try await DatabaseBootstrap.open(
        url: configuration.databaseURL, dataDirectory: configuration.dataDirectory, poolSize: 2, logger: logger)
    do {
        let migrator = try Migrator.bundled(logger: logger)
        if opened.isEmbedded { try await migrator.migrate(opened.pool) }
        let stores = CommandStores(pool: opened.pool, secretKeys: configuration.secretKeys, logger: logger)
        try await DatabaseReadiness.check(stores.secrets, pooler: opened.pooler, migrator: migrator)
        let result = try await body(stores)
        await opened.close()
        return result
    } catch let error as StoreError {
        await opened.close()
        throw ValidationError(error.message)
    } catch {
        await opened.close()
        throw error
    }
}

/// The text of `file`, or standard input for `-`.
func readInputFile(_ file: String) throws -> String {
    if file == "-" { return String(decoding: FileHandle.standardInput.readDataToEndOfFile(), as: UTF8.self) }
    guard let data = FileManager.default.contents(atPath: file) else { throw ValidationError("cannot read \(file)") }
    return String(decoding: data, as: UTF8.self)
}
