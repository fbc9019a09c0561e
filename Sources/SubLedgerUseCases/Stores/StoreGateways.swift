import AsyncHTTPClient
import Logging

/// The way to every store a process speaks to, built from its configuration: the one place a store's gateway is
/// made, for `serve`, `poll` and the commands alike. A gateway holds what is shared across a process's calls to
/// its store (HTTP connections, cached verifiers and clients, the circuit breaker), so a process builds it once.
public struct StoreGateways: Sendable {
    /// The App Store: verifyReceipt, Apple's signatures and the App Store Server API.
    public var apple: AppleGateway
    /// The stores registered as modules, each holding its own gateway (built with its configuration).
    public var registry: StoreRegistry

    public init(apple: AppleGateway, registry: StoreRegistry = StoreRegistry()) {
        self.apple = apple
        self.registry = registry
    }

    /// Every store's gateway as `configuration` describes it. Throws `ConfigurationError` when a store's settings
    /// cannot be used (an unreadable trusted root for Apple's signed data).
    public init(configuration: ServiceConfiguration, logger: Logger) throws {
        self.init(
            apple: try AppleGateway(configuration: configuration.apple, logger: logger),
            registry: configuration.storeModules(logger))
    }
}
