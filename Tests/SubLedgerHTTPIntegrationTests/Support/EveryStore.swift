import Logging
import SubLedgerCore
import SubLedgerUseCases

@testable import SubLedgerCommands

/// Every store module, registered as `serve` registers them (`StoreModules.registry`), each with its default
/// configuration: what the tests that hold every route to the documents read the stores' routes from, so a store
/// added to the composition root is held to them without naming it here.
enum EveryStore {
    static let registry = (try? StoreModules.registry(logger: Logger(label: "test"))) ?? StoreRegistry()

    /// The registrations beside the App Store's, for a harness whose App Store speaks to the test's own gateway
    /// (`ServiceHarness.run(stores:)`).
    static var besideTheAppStore: [any StoreRegistration] {
        registry.stores.filter { $0 != .appStore }.compactMap { registry[$0] }
    }
}
