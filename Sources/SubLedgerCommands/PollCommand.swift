import AppStoreStore
import ArgumentParser
import Foundation
import Logging
import ServiceLifecycle
import SubLedgerComposition
import SubLedgerCore
import SubLedgerHTTP
import SubLedgerStore
import SubLedgerUseCases

/// `subledger poll`: the renewal job, in a loop or once (`--once`, for cron).
struct PollCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "poll",
        abstract: "Check due subscriptions with Apple and verify stored receipts Apple could not verify before.",
        discussion: """
            Any number of pollers, on any machines, can run against one database: work is claimed with
            SELECT ... FOR UPDATE SKIP LOCKED and leased; a lease whose poller died runs out and the work is
            claimed again. SIGTERM/SIGINT finish the current items and give the leases back.
            """)

    @Flag(help: "Run one cycle and exit.")
    var once = false

    @Option(help: "Items worked on at once (default 4).")
    var concurrency = 4

    @Option(name: .customLong("rate"), help: "Calls to Apple per second from this poller (default 20).")
    var requestsPerSecond = 20.0

    @Option(help: "A chain expiring within this many hours is due (default 24).")
    var windowHours = 24

    @Option(help: "Seconds between cycles when looping (default 60).")
    var intervalSeconds = 60

    @Option(help: "Seconds a claimed item stays leased (default 300).")
    var leaseSeconds = 300

    @Option(
        help:
            "Seconds a pending stored receipt or notification is left to its request before the job takes it (env SUBLEDGER_PENDING_AGE_SECONDS, default 120)."
    )
    var pendingAgeSeconds: Double?

    @Option(
        help:
            "Serve Prometheus metrics (/metrics) on this port while polling (host: env SUBLEDGER_HOST, default 127.0.0.1)."
    )
    var metricsPort: Int?

    @OptionGroup var recovery: RecoveryOptions
    @OptionGroup var apple: AppleOptions
    @OptionGroup var stores: StoreOptions
    @OptionGroup var database: DatabaseOptions
    @OptionGroup var webhooks: WebhookDeliveryOptions
    @OptionGroup var traces: TracesOptions

    func validate() throws {
        guard (1...256).contains(concurrency) else { throw ValidationError("--concurrency must be 1...256") }
        guard requestsPerSecond > 0 else { throw ValidationError("--rate must be positive") }
        guard windowHours >= 0, intervalSeconds > 0, leaseSeconds > 0 else {
            throw ValidationError("durations must be positive")
        }
    }

    func run() async throws {
        let environment = CommandContext.current.environment
        // Before the options that may create the embedded cluster's key file (a refused setting must not).
        let tracesOn = try traces.isOn(environment: environment)
        var configuration = ServiceConfiguration()
        try database.apply(to: &configuration, environment: environment)
        try apple.apply(to: &configuration.apple, environment: environment)
        var poller = RenewalPoller.Configuration(worker: "\(ProcessInfo.processInfo.hostName):\(getpid())")
        // The App Store's reconciliation; `once` finishes a recovery's run at the group's shutdown instead of stopping
        // after its current window.
        var recovery = try recovery.configuration(worker: poller.worker, environment: environment)
        if once { recovery?.finishOnShutdown = true }
        try StoreModules.register(
            in: &configuration, options: stores, recovery: recovery, environment: environment)
        try webhooks.apply(to: &configuration, environment: environment)
        let logger = makeLogger("subledger.poll", level: configuration.logLevel)
        poller.once = once
        poller.concurrency = concurrency
        poller.requestsPerSecond = requestsPerSecond
        poller.window = .seconds(windowHours * 3_600)
        poller.interval = .seconds(intervalSeconds)
        poller.lease = .seconds(leaseSeconds)
        if let age = try seconds(pendingAgeSeconds, EnvironmentVariable.pendingAge, environment) {
            poller.pendingAge = age
        }
        if let host = environment[EnvironmentVariable.host], !host.isEmpty { configuration.host = host }
        // Before anything makes an HTTP client: AsyncHTTPClient takes the process's tracer when it is made.
        let tracing = tracesOn ? try traces.bootstrap(environment: environment, logLevel: configuration.logLevel) : nil
        try await SubLedgerServer.poll(
            configuration: configuration, poller: poller, metricsPort: metricsPort, tracing: tracing, logger: logger)
    }
}
