import AsyncHTTPClient
import Foundation
import HTTPTypes
import Hummingbird
import Logging
import NIOCore
import NIOPosix
import ServiceLifecycle
import SubLedgerCore
import UnixSignals

/// A local, wire-compatible Paddle Billing (API v1) for tests: products, prices, customers, transactions with
/// Paddle's totals, a checkout that pays a transaction and starts a subscription, subscriptions renewed, made past
/// due, paused, resumed and canceled on a manual clock, adjustments (refunds, credits, chargebacks), the events list,
/// notification settings and notifications signed as Paddle signs them and retried, and Paddle's error shape.
///
/// Tests start one in-process on an ephemeral port (`try await PaddleSimulator.start(...)`), point their client at
/// `baseURL` with `configuration.apiKey`, drive what customers, banks and time do through `control`, and
/// `shutdown()`.
public final class PaddleSimulator: Sendable {
    public struct Configuration: Sendable {
        public var host: String
        /// 0 picks a free port.
        public var port: Int
        /// Mixed into ids, so two simulators' ids differ.
        public var seed: UInt64
        /// The simulated clock's start. Default: 2025-01-01T00:00:00Z.
        public var startTime: Instant
        /// The API key its API accepts (`Authorization: Bearer`).
        public var apiKey: String
        /// A notification setting made at start, subscribed to every event type, with this secret key.
        public var webhookURL: String?
        public var webhookSecretKey: String
        /// The tax rate on every sale, in hundredths of a percent. Default: 1000 (10%).
        public var taxBasisPoints: Int64
        /// The seller's payout currency (ISO 4217, uppercase), in which Paddle states each paid sale and approved
        /// adjustment (`payout_totals`). Default: `nil`, each sale paid out in its own currency.
        public var payoutCurrency: String?
        /// Exchange rates into `payoutCurrency` in millionths, by the sale's currency (`"USD": 920_000` is 0.92
        /// EUR a dollar). A sale in a currency without a rate is paid out in its own currency.
        public var payoutRates: [String: Int64]
        /// The time allowed for one notification's delivery. Default: 10 s.
        public var deliveryTimeout: Duration
        /// Wall time, for what Paddle signs with the time of day (`ts` of `Paddle-Signature`).
        public var wallClock: @Sendable () -> Instant

        public init(
            host: String = "127.0.0.1", port: Int = 0, seed: UInt64 = 1,
            startTime: Instant = Instant(millisecondsSince1970: 1_735_689_600_000),
            apiKey: String = "pdl_sdbx_apikey_paddle_sim", webhookURL: String? = nil,
            webhookSecretKey: String = "pdl_ntfset_paddle_sim_secret", taxBasisPoints: Int64 = 1000,
            payoutCurrency: String? = nil, payoutRates: [String: Int64] = [:], deliveryTimeout: Duration = .seconds(10),
            wallClock: @escaping @Sendable () -> Instant = { Instant.systemNow() }
        ) {
            self.host = host
            self.port = port
            self.seed = seed
            self.startTime = startTime
            self.apiKey = apiKey
            self.webhookURL = webhookURL
            self.webhookSecretKey = webhookSecretKey
            self.taxBasisPoints = taxBasisPoints
            self.payoutCurrency = payoutCurrency
            self.payoutRates = payoutRates
            self.deliveryTimeout = deliveryTimeout
            self.wallClock = wallClock
        }
    }

    public let configuration: Configuration
    public let port: Int
    /// What customers, banks and time do.
    public let control: PaddleSimulatorControl

    private let serviceGroup: ServiceGroup
    private let runTask: Task<Void, Never>
    private let httpClient: HTTPClient

    /// `http://host:port`: Paddle's API base (in place of `https://api.paddle.com`).
    public var baseURL: String { Self.baseURL(host: configuration.host, port: port) }

    static func baseURL(host: String, port: Int) -> String {
        "http://\(host == "0.0.0.0" ? "127.0.0.1" : host):\(port)"
    }

    private init(
        configuration: Configuration, port: Int, control: PaddleSimulatorControl, serviceGroup: ServiceGroup,
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
        _ configuration: Configuration = Configuration(), logger: Logger = Logger(label: "paddle-sim")
    )
        async throws -> PaddleSimulator
    {
        try await launch(configuration, logger: logger, signals: [])
    }

    /// Runs a simulator until SIGINT or SIGTERM (the `paddle-sim` executable); `onStarted` sees it running.
    public static func run(
        _ configuration: Configuration, logger: Logger = Logger(label: "paddle-sim"),
        onStarted: @Sendable (PaddleSimulator) throws -> Void = { _ in }
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
        -> PaddleSimulator
    {
        guard (0...10_000).contains(configuration.taxBasisPoints) else {
            throw PaddleSimulatorError("the tax rate must be between 0 and 10000 hundredths of a percent")
        }
        if let currency = configuration.payoutCurrency, !PaddleWorld.State.currencies.contains(currency) {
            throw PaddleSimulatorError("the payout currency \(currency) is not one Paddle supports")
        }
        for (currency, rate) in configuration.payoutRates {
            guard PaddleWorld.State.currencies.contains(currency), (1...1_000_000_000_000).contains(rate) else {
                throw PaddleSimulatorError("the payout rate of \(currency) must be a supported currency's, 1 to 10^12")
            }
        }
        var clientConfiguration = HTTPClient.Configuration()
        clientConfiguration.connectionPool.retryConnectionEstablishment = false
        clientConfiguration.timeout.connect = .seconds(2)
        let httpClient = HTTPClient(
            eventLoopGroup: MultiThreadedEventLoopGroup.singleton, configuration: clientConfiguration)
        let world = PaddleWorld(
            now: configuration.startTime.millisecondsSince1970 / 1000, seed: configuration.seed,
            apiKey: configuration.apiKey, taxBasisPoints: configuration.taxBasisPoints)
        world.state.withLock {
            $0.payoutCurrency = configuration.payoutCurrency
            $0.payoutRates = configuration.payoutRates
        }
        if let url = configuration.webhookURL {
            world.state.withLock {
                _ = $0.addSetting(
                    description: "paddle-sim --webhook-url", destination: url,
                    events: Set(PaddleWorld.eventTypes.map(\.name)), secretKey: configuration.webhookSecretKey,
                    includeSensitive: false, trafficSource: "platform")
            }
        }
        let control = PaddleSimulatorControl(
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
                address: .hostname(configuration.host, port: configuration.port), serverName: "paddle-sim",
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
                logger.error("paddle-sim stopped", metadata: ["error": "\(error)"])
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
            throw PaddleSimulatorError("the server did not start (is the port in use?)")
        }
        world.state.withLock { $0.baseURL = baseURL(host: configuration.host, port: port) }
        return PaddleSimulator(
            configuration: configuration, port: port, control: control, serviceGroup: group, runTask: task,
            httpClient: httpClient)
    }

    static func buildRouter(world: PaddleWorld, control: PaddleSimulatorControl) -> Router<BasicRequestContext> {
        let router = Router(context: BasicRequestContext.self)
        let api = APIResponder(world: world)
        ControlRoutes(control: control).register(on: router)
        let handler: @Sendable (Request, BasicRequestContext) async throws -> Response = { request, _ in
            var request = request
            guard let body = try? await request.collectBody(upTo: 256 * 1024) else {
                return Self.response(
                    PaddleAnswer(
                        status: 413,
                        body: PaddleFailure(
                            status: 413, code: "request_body_too_large", detail: "The request body is too large."
                        )
                        .body(requestID: "")))
            }
            let answer = api.respond(
                method: request.method.rawValue, path: request.uri.path, query: request.uri.query ?? "",
                body: String(decoding: body.readableBytesView, as: UTF8.self),
                authorization: request.headers[.authorization])
            // The notifications a change made go out before it is answered, so a test reads what followed. A read
            // sends nothing: a receiver reads back while its notification is being delivered.
            if request.method != .get { await control.deliver() }
            return Self.response(answer)
        }
        for method in [HTTPRequest.Method.get, .post, .patch, .delete] {
            router.on("/{collection}", method: method, use: handler)
            router.on("/{collection}/{id}", method: method, use: handler)
            router.on("/{collection}/{id}/{action}", method: method, use: handler)
        }
        return router
    }

    static func response(_ answer: PaddleAnswer) -> Response {
        Response(
            status: .init(code: answer.status), headers: [.contentType: "application/json"],
            body: .init(byteBuffer: ByteBuffer(bytes: answer.body.data)))
    }
}

/// A simulator that could not start.
public struct PaddleSimulatorError: Error, Sendable, CustomStringConvertible {
    public var description: String
    init(_ description: String) { self.description = description }
}
