import AppStoreSimulator
import AppStoreStore
import Foundation
import SubLedgerCore
import SubLedgerStore
import SubLedgerTestSupport
import SubLedgerUseCases

extension EndToEndHarness {
    /// SubLedger's App Store ingestion as `subledger poll` and `subledger import` build it: on this harness's database,
    /// appstore-sim as Apple, the simulator's clock.
    func appleIngestion() throws -> Ingestion {
        let sim = self.sim
        return Ingestion(
            store: service.store, catalog: service.catalog, apple: try sim.appleGateway(), logger: TestDatabase.logger,
            now: { Instant(millisecondsSince1970: sim.control.clock().now) })
    }

    /// The renewal job over the App Store's port, one cycle a run (`subledger poll --once`), at the simulator's
    /// clock; `observe` is told of each chain it checked with Apple (`RenewalPoller.ChainRefresher.stores`).
    func renewalJob(
        observe: @escaping @Sendable (PollQueue.DueChain, LedgerStore.Applied?) async -> Void = { _, _ in }
    ) throws -> RenewalPoller {
        let ports = StorePorts(appStore: AppStorePort(ingestion: try appleIngestion()), registered: [])
        let stores = RenewalPoller.ChainRefresher.stores(ports)
        var configuration = RenewalPoller.Configuration(worker: "e2e")
        configuration.requestsPerSecond = 1_000
        configuration.once = true
        let sim = self.sim
        return RenewalPoller(
            configuration: configuration, queue: PollQueue(pool: service.pool), store: service.store,
            catalog: service.catalog, ports: ports,
            refresher: RenewalPoller.ChainRefresher { chain, app in
                let applied = try await stores.refresh(chain, app)
                await observe(chain, applied)
                return applied
            }, logger: TestDatabase.logger, now: { Instant(millisecondsSince1970: sim.control.clock().now) })
    }

    /// `subledger import` of `csv` (an App Store file) into this harness's app.
    func importFile(_ csv: String, name: String = "import.csv") async throws -> ImportSummary {
        guard let app = try await service.catalog.app(bundleID: Self.bundleID) else { throw MissingApp() }
        let importer = try MigrationImporter(
            ingestion: try appleIngestion(), app: app,
            configuration: .init(concurrency: 1, maximumBackoff: .seconds(1)), logger: TestDatabase.logger)
        return try await importer.run(try ImportFile(bytes: Array(csv.utf8)), fileName: name)
    }

    private struct MissingApp: Error {}
}

extension AppStoreSimulator {
    /// A gateway to this simulator as a fresh `subledger` process makes one (its own breaker and call slots), trusting
    /// the simulator's root.
    func appleGateway() throws -> AppleGateway {
        let sim = self
        return try AppleGateway(
            configuration: AppleConfiguration(
                verifyReceiptProductionURL: sim.productionVerifyReceiptURL,
                verifyReceiptSandboxURL: sim.sandboxVerifyReceiptURL, trustAppleRoot: false, timeout: .seconds(20),
                serverAPIProductionURL: sim.serverAPIBaseURL(.production),
                serverAPISandboxURL: sim.serverAPIBaseURL(.sandbox)),
            additionalRoots: [sim.trustedRoot], logger: TestDatabase.logger)
    }
}
