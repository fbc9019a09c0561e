import AppStore
import AsyncHTTPClient
import Foundation
import Hummingbird
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import SubLedgerCore
import Synchronization
import UnixSignals
import X509

/// A local, wire-compatible simulator of Apple's App Store servers: verifyReceipt, the App Store Server
/// API, signed transactions, PKCS#7 app receipts and server notifications, driven by a control API.
///
/// Tests start one in-process on an ephemeral port (`try await AppStoreSimulator.start(...)`), point
/// SubLedger's clients at `baseURL`, trust `trustedRoot`, drive it with `control`, and `shutdown()`.
public final class AppStoreSimulator: Sendable {
    /// The configuration it runs with.
    public let configuration: Configuration
    /// The port it listens on.
    public let port: Int
    /// Direct access to the control operations (the same ones `/control` serves).
    public let control: SimulatorControl
    /// The simulator's signing root, DER.
    public let rootCertificateDER: [UInt8]
    /// The simulator's signing root, PEM.
    public let rootCertificatePEM: String
    /// The signing root as a (strict RFC 5280) verifier root for `SignedDataVerifier`.
    public let trustedRoot: TrustedRoot

    private let serviceGroup: ServiceGroup
    private let runTask: Task<Void, Never>
    private let httpClient: HTTPClient

    /// `http://host:port`.
    public var baseURL: String {
        "http://\(configuration.host == "0.0.0.0" ? "127.0.0.1" : configuration.host):\(port)"
    }
    /// The production verifyReceipt URL (`VerifyReceiptClient.Configuration.productionURL`).
    public var productionVerifyReceiptURL: String { baseURL + "/verifyReceipt" }
    /// The sandbox verifyReceipt URL (`VerifyReceiptClient.Configuration.sandboxURL`).
    public var sandboxVerifyReceiptURL: String { baseURL + "/sandbox/verifyReceipt" }

    /// The Server API base URL for an environment (`AppStoreServerAPIClient.Configuration.baseURL`).
    public func serverAPIBaseURL(_ environment: StoreEnvironment) -> String {
        environment == .production ? baseURL : baseURL + "/sandbox"
    }

    private init(
        configuration: Configuration, port: Int, control: SimulatorControl, chain: SigningChain,
        serviceGroup: ServiceGroup, runTask: Task<Void, Never>, httpClient: HTTPClient
    ) throws {
        self.configuration = configuration
        self.port = port
        self.control = control
        self.rootCertificateDER = try SigningChain.der(chain.root)
        self.rootCertificatePEM = try chain.root.serializeAsPEM().pemString
        self.trustedRoot = chain.trustedRoot
        self.serviceGroup = serviceGroup
        self.runTask = runTask
        self.httpClient = httpClient
    }

    /// Starts a simulator in this process; it runs until `shutdown()`.
    public static func start(
        _ configuration: Configuration = Configuration(),
        logger: Logger = Logger(label: "appstore-sim")
    ) async throws -> AppStoreSimulator {
        try await launch(configuration, logger: logger, signals: [])
    }

    /// Runs a simulator until SIGINT or SIGTERM (the `appstore-sim` executable); `onStarted` sees it running.
    public static func run(
        _ configuration: Configuration,
        logger: Logger = Logger(label: "appstore-sim"),
        onStarted: @Sendable (AppStoreSimulator) -> Void = { _ in }
    ) async throws {
        let simulator = try await launch(configuration, logger: logger, signals: [.sigint, .sigterm])
        onStarted(simulator)
        _ = await simulator.runTask.result
        try await simulator.httpClient.shutdown()
    }

    /// Stops listening, ends background work and releases the notification client.
    public func shutdown() async throws {
        await serviceGroup.triggerGracefulShutdown()
        await runTask.value
        try await httpClient.shutdown()
    }

    /// The signing root `--export-root` writes for a seed (the same for every run with that seed).
    public static func rootCertificate(seed: UInt64) throws -> (der: [UInt8], pem: String) {
        let chain = try SimulatorSigningChain.make(seed: seed)
        return (try SigningChain.der(chain.root), try chain.root.serializeAsPEM().pemString)
    }

    private static func launch(
        _ configuration: Configuration,
        logger: Logger,
        signals: [UnixSignal]
    ) async throws -> AppStoreSimulator {
        var clientConfiguration = HTTPClient.Configuration()
        // A receiver that refuses connections fails the attempt at once (recorded, and retried on Apple's
        // schedule) instead of the client trying to connect again until the attempt's timeout.
        clientConfiguration.connectionPool.retryConnectionEstablishment = false
        // A receiver that does not take the connection at all (packets dropped) fails the attempt after the
        // connect timeout, at most 2 s, not the attempt's whole timeout.
        let attemptMilliseconds =
            configuration.notificationTimeout.components.seconds * 1000
            + configuration.notificationTimeout.components.attoseconds / 1_000_000_000_000_000
        clientConfiguration.timeout.connect = .milliseconds(min(2000, max(1, attemptMilliseconds)))
        let httpClient = HTTPClient(
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: clientConfiguration)
        do {
            let delivery = NotificationDelivery(
                httpClient: httpClient, timeout: configuration.notificationTimeout, logger: logger)
            let engine = try SimulatorEngine(configuration: configuration, delivery: delivery, logger: logger)
            let control = SimulatorControl(engine: engine)
            for app in configuration.apps { _ = try control.createApp(app) }
            for appleID in configuration.appleIDs { _ = try control.createAppleID(appleID) }
            let router = try buildRouter(engine: engine, control: control)
            let (ports, portContinuation) = AsyncStream<Int>.makeStream()
            let app = Application(
                router: router,
                configuration: ApplicationConfiguration(
                    address: .hostname(configuration.host, port: configuration.port),
                    serverName: "appstore-sim",
                    reuseAddress: true),
                onServerRunning: { channel in
                    portContinuation.yield(channel.localAddress?.port ?? 0)
                },
                logger: logger)
            let ticker = SimulationTicker(engine: engine, interval: configuration.tickInterval)
            let group = ServiceGroup(
                configuration: ServiceGroupConfiguration(
                    services: [.init(service: app), .init(service: ticker)],
                    gracefulShutdownSignals: signals,
                    logger: logger))
            let task = Task {
                do {
                    try await group.run()
                } catch {
                    logger.error("appstore-sim stopped", metadata: ["error": "\(error)"])
                }
                portContinuation.finish()
            }
            var port: Int?
            for await bound in ports {
                port = bound
                break
            }
            guard let port else {
                throw SimulatorError(.internalError, "the server did not start (is the port in use?)")
            }
            return try AppStoreSimulator(
                configuration: configuration, port: port, control: control, chain: engine.signer.chain,
                serviceGroup: group, runTask: task, httpClient: httpClient)
        } catch {
            try? await httpClient.shutdown()
            throw error
        }
    }
}
