import Foundation
import Logging
import SubLedgerCore
import SubLedgerStore

/// `subledger import`, below its argument parsing: reads the file, opens the database, imports, and
/// cancels cleanly on SIGINT/SIGTERM (the checkpoint keeps what was done).
public enum ImportRunner {
    /// Runs an import of `path` into the app `bundleID`; returns the summary.
    public static func run(
        path: String, bundleID: String, service: ServiceConfiguration, importer: MigrationImporter.Configuration,
        progress printer: ImportProgressPrinter, logger: Logger
    ) async throws -> ImportSummary {
        try importer.validate()
        let file = try ImportFile(bytes: try readFile(path))
        let opened = try await DatabaseBootstrap.open(service, poolSize: importer.concurrency + 2, logger: logger)
        do {
            let migrator = try Migrator.bundled(logger: logger)
            if opened.isEmbedded { try await migrator.migrate(opened.pool) }
            let catalog = CatalogStore(pool: opened.pool, secretKeys: service.secretKeys)
            try await DatabaseReadiness.check(
                SecretStore(pool: opened.pool, secretKeys: service.secretKeys, logger: logger), pooler: opened.pooler,
                migrator: migrator)
            guard IdentifierRule.bundleID.accepts(bundleID), let app = try await catalog.app(bundleID: bundleID) else {
                throw ImportError(.invalidApp, "no app \(bundleID) is configured: run `subledger catalog apply` first")
            }
            let gateways = try StoreGateways(configuration: service, logger: logger)
            let context = gateways.context(
                store: LedgerStore(pool: opened.pool), catalog: catalog, logger: logger, now: { Instant.systemNow() })
            let migration = try MigrationImporter(
                ledger: context.store, now: context.now, appStore: gateways.registry[.appStore]?.rowImport(context),
                googlePlay: gateways.registry[.googlePlay]?.port(context),
                subscriptionImports: gateways.registry.subscriptionImports(logger: logger), app: app,
                configuration: importer, logger: logger)
            let name = URL(fileURLWithPath: path).lastPathComponent
            let task = Task { try await migration.run(file, fileName: name) { printer.show($0) } }
            let signals = cancelling(task, on: [SIGINT, SIGTERM])
            defer { signals.forEach { $0.cancel() } }
            let summary = try await task.value
            printer.finish()
            await opened.close()
            return summary
        } catch {
            printer.finish()
            await opened.close()
            throw error
        }
    }

    /// The file's bytes, refusing a missing, unreadable or oversized file with a clear error.
    static func readFile(_ path: String) throws(ImportError) -> [UInt8] {
        guard !path.isEmpty, !path.contains("\0") else { throw ImportError(.invalidFile, "the file path is empty") }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue else {
            throw ImportError(.invalidFile, "no file at \(path)")
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
        guard size <= ImportFile.maximumBytes else {
            throw ImportError(.invalidFile, "the file is larger than \(ImportFile.maximumBytes) bytes")
        }
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ImportError(.invalidFile, "\(path) cannot be read")
        }
        return [UInt8](data)
    }

    /// Turns the signals into a cancellation of `task` (rows in flight finish; the rest wait for the next run).
    private static func cancelling<T>(_ task: Task<T, any Error>, on signals: [Int32]) -> [any DispatchSourceSignal] {
        signals.map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { task.cancel() }
            source.resume()
            return source
        }
    }
}
