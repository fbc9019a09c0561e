import ArgumentParser
import Foundation
import SubLedgerStore
import SubLedgerUseCases

/// Opens the configured database (migrating an embedded one), checks it as `serve` does (`DatabaseReadiness`),
/// runs `body` with a `LedgerStore`, and closes it: the shared shape of the revenue settings commands (`fx`,
/// `tax`, `apps`).
func withLedgerStore<T: Sendable>(
    _ database: DatabaseOptions, label: String, _ body: (LedgerStore) async throws -> T
) async throws -> T {
    var configuration = ServiceConfiguration()
    try database.apply(to: &configuration, environment: CommandContext.current.environment)
    let logger = makeLogger(label, level: configuration.logLevel)
    let opened = try await DatabaseBootstrap.open(
        url: configuration.databaseURL, dataDirectory: configuration.dataDirectory, poolSize: 2, logger: logger)
    do {
        let migrator = try Migrator.bundled(logger: logger)
        if opened.isEmbedded { try await migrator.migrate(opened.pool) }
        let store = LedgerStore(pool: opened.pool, logger: logger, secretKeys: configuration.secretKeys)
        try await DatabaseReadiness.check(store, pooler: opened.pooler, migrator: migrator)
        let result = try await body(store)
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
