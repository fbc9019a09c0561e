import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import SubLedgerCore
import Synchronization
import UnixSignals

/// A local, wire-compatible Stripe for tests and the quick start: customers, products and prices, Checkout
/// Sessions, subscriptions with their invoices, invoice payments, payment intents, charges (Stripe's fee in a balance
/// transaction), refunds and disputes, the events list, webhooks signed as Stripe signs them and retried on its
/// schedule, a manual clock that renews subscriptions, Stripe's error objects and form-encoded requests, and faults.
///
/// Tests start one in-process on an ephemeral port (`try await StripeSimulator.start(...)`), point their client at
/// `baseURL` with `configuration.secretKey`, drive what a customer or a bank does through `control`, and
/// `shutdown()`.
public final class StripeSimulator: Sendable {
    public struct Configuration: Sendable {
        public var host: String
        /// 0 picks a free port.
        public var port: Int
        public var seed: UInt64
        /// The simulated clock's start. Default: 2025-01-01T00:00:00Z.
        public var startTime: Instant
        /// The secret key its API accepts (`Authorization: Bearer`, or HTTP Basic with the key as the user).
        public var secretKey: String
        /// A webhook endpoint made at start, listening to every event, with this signing secret.
        public var webhookURL: String?
        public var webhookSecret: String
        /// The time allowed for one webhook delivery. Default: 30 s.
        public var deliveryTimeout: Duration
        /// Wall time, for what Stripe signs with the time of day (webhook signatures). Default: the system clock.
        public var wallClock: @Sendable () -> Instant

        public init(
            host: String = "127.0.0.1", port: Int = 0, seed: UInt64 = 1,
            startTime: Instant = Instant(millisecondsSince1970: 1_735_689_600_000),
            secretKey: String = "sk_test_stripe_sim", webhookURL: String? = nil,
            webhookSecret: String = "whsec_stripe_sim", deliveryTimeout: Duration = .seconds(30),
            wallClock: @escaping @Sendable () -> Instant = { Instant.systemNow() }
        ) {
            self.host = host
            self.port = port
            self.seed = seed
            self.startTime = startTime
            self.secretKey = secretKey
            self.webhookURL = webhookURL
            self.webhookSecret = webhookSecret
            self.deliveryTimeout = deliveryTimeout
            self.wallClock = wallClock
        }
    }

    public let configuration: Configuration
    public let port: Int
    /// What customers, banks and time do, and the faults.
    public let control: StripeSimulatorControl

    private let serviceGroup: ServiceGroup
    private let runTask: Task<Void, Never>
    private let httpClient: HTTPClient

    /// `http://host:port`: Stripe's API base (in place of `https://api.stripe.com`).
    public var baseURL: String { Self.baseURL(host: configuration.host, port: port) }

    static func baseURL(host: String, port: Int) -> String {
        "http://\(host == "0.0.0.0" ? "127.0.0.1" : host):\(port)"
    }

    private init(
        configuration: Configuration, port: Int, control: StripeSimulatorControl, serviceGroup: ServiceGroup,
        runTask: Task<Void, Never>, httpClient: HTTPClient
    ) {
        self.configuration = configuration
        self.port = port
        self.control = control
        self.serviceGroup = serviceGroup
        self.runTask = runTask
        self.httpClient = httpClient
    }

    /// Starts a simulator in this process; it runs until `shutdown()`.
    public static func start(
        _ configuration: Configuration = Configuration(), logger: Logger = Logger(label: "stripe-sim")
    )
        async throws -> StripeSimulator
    {
        try await launch(configuration, logger: logger, signals: [])
    }

    /// Runs a simulator until SIGINT or SIGTERM (the `stripe-sim` executable); `onStarted` sees it running.
    public static func run(
        _ configuration: Configuration, logger: Logger = Logger(label: "stripe-sim"),
        onStarted: @Sendable (StripeSimulator) throws -> Void = { _ in }
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

    public func shutdown() async throws {
        await serviceGroup.triggerGracefulShutdown()
        await runTask.value
        try await httpClient.shutdown()
    }

    private static func launch(_ configuration: Configuration, logger: Logger, signals: [UnixSignal]) async throws
        -> StripeSimulator
    {
        var clientConfiguration = HTTPClient.Configuration()
        clientConfiguration.connectionPool.retryConnectionEstablishment = false
        clientConfiguration.timeout.connect = .seconds(2)
        let httpClient = HTTPClient(
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: clientConfiguration)
        let world = StripeWorld(
            now: configuration.startTime.millisecondsSince1970 / 1000, seed: configuration.seed,
            secretKey: configuration.secretKey)
        if let url = configuration.webhookURL {
            world.state.withLock {
                _ = $0.addEndpoint(url: url, events: ["*"], secret: configuration.webhookSecret, revealSecret: false)
            }
        }
        let control = StripeSimulatorControl(
            world: world,
            deliver: {
                await world.deliverDue(
                    client: httpClient, timeout: configuration.deliveryTimeout,
                    wallClock: { configuration.wallClock().millisecondsSince1970 / 1000 }, logger: logger)
            })
        let router = buildRouter(world: world, control: control)
        let (ports, portContinuation) = AsyncStream<Int>.makeStream()
        let app = Application(
            router: router,
            configuration: ApplicationConfiguration(
                address: .hostname(configuration.host, port: configuration.port), serverName: "stripe-sim",
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
                logger.error("stripe-sim stopped", metadata: ["error": "\(error)"])
            }
            portContinuation.finish()
        }
        var port: Int?
        for await bound in ports {
            port = bound
            break
        }
        guard let port, port > 0 else {
            try? await httpClient.shutdown()
            throw StripeSimulatorError("the server did not start (is the port in use?)")
        }
        world.baseURL.withLock { $0 = baseURL(host: configuration.host, port: port) }
        return StripeSimulator(
            configuration: configuration, port: port, control: control, serviceGroup: group, runTask: task,
            httpClient: httpClient)
    }

    static func buildRouter(world: StripeWorld, control: StripeSimulatorControl) -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        let api = APIResponder(world: world)
        let handler: @Sendable (Request, BasicRequestContext) async throws -> Response = { request, _ in
            var request = request
            guard let body = try? await request.collectBody(upTo: 256 * 1024) else {
                return Self.response(.failure(.invalid("The request body is too large.")))
            }
            let answer = api.respond(
                method: request.method.rawValue, path: request.uri.path, query: request.uri.query ?? "",
                body: String(decoding: body.readableBytesView, as: UTF8.self),
                authorization: request.headers[.authorization],
                idempotencyKey: request.headers[HTTPField.Name("Idempotency-Key")!])
            // Webhooks of what a change made go out before it is answered, so a test reads what followed. A read
            // sends nothing: the receiver of a webhook reads back while that webhook is being delivered.
            if request.method != .get { await control.deliver() }
            return Self.response(answer)
        }
        router.get("/v1/**", use: handler)
        router.post("/v1/**", use: handler)
        router.delete("/v1/**", use: handler)
        ControlRoutes(control: control).register(on: router)
        return router
    }

    static func response(_ answer: SimAnswer) -> Response {
        Response(
            status: .init(code: answer.status),
            headers: [.contentType: "application/json", HTTPField.Name("Stripe-Version")!: StripeWorld.apiVersion],
            body: .init(byteBuffer: ByteBuffer(bytes: answer.body.data)))
    }
}

public struct StripeSimulatorError: Error, Sendable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
