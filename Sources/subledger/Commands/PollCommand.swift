import ArgumentParser
import Foundation
import Logging
import ServiceLifecycle
import SubLedgerCore
import SubLedgerService
import SubLedgerStore

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

    @Option(help: "Serve Prometheus metrics (/metrics) on this port while polling (host: env SUBLEDGER_HOST, default 127.0.0.1).")
    var metricsPort: Int?

    @OptionGroup var apple: AppleOptions
    @OptionGroup var database: DatabaseOptions

    func validate() throws {
        guard (1...256).contains(concurrency) else { throw ValidationError("--concurrency must be 1...256") }
        guard requestsPerSecond > 0 else { throw ValidationError("--rate must be positive") }
        guard windowHours >= 0, intervalSeconds > 0, leaseSeconds > 0 else { throw ValidationError("durations must be positive") }
    }

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        var configuration = ServiceConfiguration()
        try database.apply(to: &configuration, environment: environment)
        try apple.apply(to: &configuration.apple, environment: environment)
        let logger = makeLogger("subledger.poll", level: configuration.logLevel)
        var poller = RenewalPoller.Configuration(worker: "\(ProcessInfo.processInfo.hostName):\(getpid())")
        poller.once = once
        poller.concurrency = concurrency
        poller.requestsPerSecond = requestsPerSecond
        poller.window = .seconds(windowHours * 3_600)
        poller.interval = .seconds(intervalSeconds)
        poller.lease = .seconds(leaseSeconds)
        if let host = environment[EnvironmentVariable.host], !host.isEmpty { configuration.host = host }
        try await SubLedgerServer.poll(configuration: configuration, poller: poller, metricsPort: metricsPort, logger: logger)
    }
}

/// Where Apple is: flags, else environment, else Apple's production endpoints.
struct AppleOptions: ParsableArguments {
    @Option(name: .customLong("verify-receipt-url"), help: "verifyReceipt production URL (env SUBLEDGER_VERIFY_RECEIPT_URL, default Apple's).")
    var verifyReceiptURL: String?

    @Option(name: .customLong("verify-receipt-sandbox-url"), help: "verifyReceipt sandbox URL (env SUBLEDGER_VERIFY_RECEIPT_SANDBOX_URL, default Apple's).")
    var verifyReceiptSandboxURL: String?

    @Option(name: .customLong("apple-root"), help: "Extra trusted root certificate for signed data, DER or PEM; repeatable (env SUBLEDGER_APPLE_EXTRA_ROOTS, comma-separated). E.g. appstore-sim's exported root.")
    var appleRoots: [String] = []

    @Flag(inversion: .prefixedNo, help: "Trust Apple Root CA G3 (env SUBLEDGER_TRUST_APPLE_ROOT, default true).")
    var trustAppleRoot: Bool?

    @Option(name: .customLong("server-api-url"), help: "App Store Server API production base URL (env SUBLEDGER_SERVER_API_URL, default Apple's).")
    var serverAPIURL: String?

    @Option(name: .customLong("server-api-sandbox-url"), help: "App Store Server API sandbox base URL (env SUBLEDGER_SERVER_API_SANDBOX_URL, default Apple's).")
    var serverAPISandboxURL: String?

    func apply(to configuration: inout AppleConfiguration, environment: [String: String]) throws {
        if let url = verifyReceiptURL ?? environment[EnvironmentVariable.verifyReceiptURL], !url.isEmpty {
            configuration.verifyReceiptProductionURL = url
        }
        if let url = verifyReceiptSandboxURL ?? environment[EnvironmentVariable.verifyReceiptSandboxURL], !url.isEmpty {
            configuration.verifyReceiptSandboxURL = url
        }
        configuration.extraRootPaths = appleRoots.isEmpty
            ? (environment[EnvironmentVariable.extraRoots] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            : appleRoots
        if let url = serverAPIURL ?? environment[EnvironmentVariable.serverAPIURL], !url.isEmpty {
            configuration.serverAPIProductionURL = url
        }
        if let url = serverAPISandboxURL ?? environment[EnvironmentVariable.serverAPISandboxURL], !url.isEmpty {
            configuration.serverAPISandboxURL = url
        }
        if let trust = trustAppleRoot {
            configuration.trustAppleRoot = trust
        } else if let raw = environment[EnvironmentVariable.trustAppleRoot] {
            guard let trust = Bool(raw.lowercased()) else { throw ValidationError("\(EnvironmentVariable.trustAppleRoot) must be true or false") }
            configuration.trustAppleRoot = trust
        }
    }
}
