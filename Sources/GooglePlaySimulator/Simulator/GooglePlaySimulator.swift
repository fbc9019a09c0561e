import AsyncHTTPClient
import Foundation
import GooglePlay
import Hummingbird
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import SubLedgerCore
import Synchronization
import UnixSignals

/// A local, wire-compatible simulator of Google Play's servers: the Android Publisher API's purchase methods,
/// the OAuth2 token endpoint for a service account it generates, and real-time developer notifications pushed
/// Pub/Sub-style with OIDC tokens signed by its own key; driven by a control API and a manual clock.
///
/// Tests start one in-process on an ephemeral port (`try await GooglePlaySimulator.start(...)`), give their
/// client `serviceAccountKey`, trust `pushKeySet`, drive it with `control`, and `shutdown()`.
public final class GooglePlaySimulator: Sendable {
    /// The configuration it runs with.
    public let configuration: Configuration
    /// The port it listens on.
    public let port: Int
    /// The control operations (the same ones `/control` serves).
    public let control: SimulatorControl
    /// The service account whose assertions the token endpoint accepts; its `token_uri` is this simulator's.
    public let serviceAccountKey: ServiceAccountKey
    /// The keys that sign push tokens, by `kid` (what `/oauth2/v3/certs` serves).
    public let pushKeySet: JSONWebKeySet
    /// The push-token key's PEM, to start a later simulator with the same key (`pushSigningKeyPEM`).
    public let pushSigningKeyPEM: String

    private let serviceGroup: ServiceGroup
    private let runTask: Task<Void, Never>
    private let httpClient: HTTPClient

    /// `http://host:port`.
    public var baseURL: String { Self.baseURL(host: configuration.host, port: port) }
    /// The Android Publisher API's root, in place of `https://androidpublisher.googleapis.com`.
    public var developerAPIBaseURL: String { baseURL }
    /// The token endpoint, in place of `https://oauth2.googleapis.com/token`.
    public var tokenURL: String { baseURL + "/token" }
    /// The push-token JWKS, in place of `https://www.googleapis.com/oauth2/v3/certs`.
    public var jwksURL: String { baseURL + "/oauth2/v3/certs" }

    static func baseURL(host: String, port: Int) -> String {
        "http://\(host == "0.0.0.0" ? "127.0.0.1" : host):\(port)"
    }

    private init(
        configuration: Configuration, port: Int, control: SimulatorControl, serviceAccountKey: ServiceAccountKey,
        keys: SimulatorKeys, serviceGroup: ServiceGroup, runTask: Task<Void, Never>, httpClient: HTTPClient
    ) {
        self.configuration = configuration
        self.port = port
        self.control = control
        self.serviceAccountKey = serviceAccountKey
        self.pushKeySet = keys.pushKeySet
        self.pushSigningKeyPEM = keys.pushKey.pkcs8PEMRepresentation
        self.serviceGroup = serviceGroup
        self.runTask = runTask
        self.httpClient = httpClient
    }

    /// Starts a simulator in this process; it runs until `shutdown()`.
    public static func start(
        _ configuration: Configuration = Configuration(), logger: Logger = Logger(label: "play-sim")
    ) async throws -> GooglePlaySimulator {
        try await launch(configuration, logger: logger, signals: [])
    }

    /// Runs a simulator until SIGINT or SIGTERM (the `play-sim` executable); `onStarted` sees it running.
    public static func run(
        _ configuration: Configuration, logger: Logger = Logger(label: "play-sim"),
        onStarted: @Sendable (GooglePlaySimulator) throws -> Void = { _ in }
    ) async throws {
        let simulator = try await launch(configuration, logger: logger, signals: [.sigint, .sigterm])
        do {
            try onStarted(simulator)
        } catch {
            try await simulator.shutdown()
            throw error
        }
        _ = await simulator.runTask.result
        try await simulator.httpClient.shutdown()
    }

    /// Stops listening and releases the push client.
    public func shutdown() async throws {
        await serviceGroup.triggerGracefulShutdown()
        await runTask.value
        try await httpClient.shutdown()
    }

    private static func launch(_ configuration: Configuration, logger: Logger, signals: [UnixSignal]) async throws
        -> GooglePlaySimulator
    {
        var clientConfiguration = HTTPClient.Configuration()
        clientConfiguration.connectionPool.retryConnectionEstablishment = false
        clientConfiguration.timeout.connect = .seconds(2)
        let httpClient = HTTPClient(
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: clientConfiguration)
        do {
            let keys = try SimulatorKeys(
                serviceAccountPEM: configuration.serviceAccountKeyPEM, pushPEM: configuration.pushSigningKeyPEM)
            let delivery = PushDelivery(
                httpClient: httpClient, timeout: configuration.pushTimeout, keys: keys,
                subscriptionName: "projects/play-sim/subscriptions/rtdn", logger: logger)
            let engine = SimulatorEngine(configuration: configuration, keys: keys, delivery: delivery, logger: logger)
            let control = SimulatorControl(engine: engine)
            for package in configuration.packages { try control.createPackage(package) }
            let boundPort = Mutex(0)
            let host = configuration.host
            let serviceAccount: @Sendable () -> ServiceAccountKey = {
                ServiceAccountKey(
                    projectID: "play-sim", privateKeyID: keys.serviceAccountKeyID,
                    clientEmail: configuration.serviceAccountEmail, clientID: "100000000000000000001",
                    tokenURI: baseURL(host: host, port: boundPort.withLock { $0 }) + "/token",
                    privateKey: keys.serviceAccountKey)
            }
            let router = try buildRouter(
                engine: engine, control: control,
                tokenAudiences: {
                    [
                        baseURL(host: host, port: boundPort.withLock { $0 }) + "/token",
                        "https://oauth2.googleapis.com/token",
                    ]
                },
                serviceAccountJSON: { (try? serviceAccount().jsonData()) ?? Data("{}".utf8) })
            let (ports, portContinuation) = AsyncStream<Int>.makeStream()
            let app = Application(
                router: router,
                configuration: ApplicationConfiguration(
                    address: .hostname(configuration.host, port: configuration.port), serverName: "play-sim",
                    reuseAddress: true),
                onServerRunning: { channel in portContinuation.yield(channel.localAddress?.port ?? 0) },
                logger: logger)
            let group = ServiceGroup(
                configuration: ServiceGroupConfiguration(
                    services: [.init(service: app)], gracefulShutdownSignals: signals, logger: logger))
            let task = Task {
                do {
                    try await group.run()
                } catch {
                    logger.error("play-sim stopped", metadata: ["error": "\(error)"])
                }
                portContinuation.finish()
            }
            var port: Int?
            for await bound in ports {
                port = bound
                break
            }
            guard let port, port > 0 else {
                throw SimulatorError(.internalError, "the server did not start (is the port in use?)")
            }
            boundPort.withLock { $0 = port }
            return GooglePlaySimulator(
                configuration: configuration, port: port, control: control, serviceAccountKey: serviceAccount(),
                keys: keys, serviceGroup: group, runTask: task, httpClient: httpClient)
        } catch {
            try? await httpClient.shutdown()
            throw error
        }
    }
}
