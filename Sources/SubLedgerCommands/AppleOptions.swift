import ArgumentParser
import Foundation
import Logging
import ServiceLifecycle
import SubLedgerCore
import SubLedgerStore
import SubLedgerUseCases

/// Where Apple is: flags, else environment, else Apple's production endpoints.
struct AppleOptions: ParsableArguments {
    @Option(
        name: .customLong("verify-receipt-url"),
        help: "verifyReceipt production URL (env SUBLEDGER_VERIFY_RECEIPT_URL, default Apple's).")
    var verifyReceiptURL: String?

    @Option(
        name: .customLong("verify-receipt-sandbox-url"),
        help: "verifyReceipt sandbox URL (env SUBLEDGER_VERIFY_RECEIPT_SANDBOX_URL, default Apple's).")
    var verifyReceiptSandboxURL: String?

    @Option(
        name: .customLong("apple-root"),
        help:
            "Extra trusted root certificate for signed data, DER or PEM; repeatable (env SUBLEDGER_APPLE_EXTRA_ROOTS, comma-separated). E.g. appstore-sim's exported root."
    )
    var appleRoots: [String] = []

    @Flag(inversion: .prefixedNo, help: "Trust Apple Root CA G3 (env SUBLEDGER_TRUST_APPLE_ROOT, default true).")
    var trustAppleRoot: Bool?

    @Option(
        name: .customLong("server-api-url"),
        help: "App Store Server API production base URL (env SUBLEDGER_SERVER_API_URL, default Apple's).")
    var serverAPIURL: String?

    @Option(
        name: .customLong("server-api-sandbox-url"),
        help: "App Store Server API sandbox base URL (env SUBLEDGER_SERVER_API_SANDBOX_URL, default Apple's).")
    var serverAPISandboxURL: String?

    @Option(
        name: .customLong("apple-timeout"),
        help:
            "Seconds one verification with Apple may take in all, queueing and a sandbox receipt's second call included (env SUBLEDGER_APPLE_TIMEOUT_SECONDS, default 30)."
    )
    var appleTimeout: Double?

    @Option(
        name: .customLong("apple-connect-timeout"),
        help: "Seconds connecting to Apple may take (env SUBLEDGER_APPLE_CONNECT_TIMEOUT_SECONDS, default 3).")
    var appleConnectTimeout: Double?

    @Option(
        name: .customLong("apple-max-connections"),
        help:
            "Calls to Apple at once, and connections per Apple host; more wait up to 20 s for a free one (env SUBLEDGER_APPLE_MAX_CONNECTIONS, default 128)."
    )
    var appleMaximumConnections: Int?

    @Option(
        name: .customLong("apple-breaker-failures"),
        help:
            "Consecutive Apple failures after which calls are refused at once with 503; 0 turns the circuit breaker off (env SUBLEDGER_APPLE_BREAKER_FAILURES, default 5)."
    )
    var appleBreakerFailures: Int?

    @Option(
        name: .customLong("apple-breaker-cooldown"),
        help:
            "Seconds the open circuit breaker refuses calls (env SUBLEDGER_APPLE_BREAKER_COOLDOWN_SECONDS, default 30)."
    )
    var appleBreakerCooldown: Double?

    @Option(
        name: .customLong("retry-base"),
        help:
            "Seconds before a failed stored input is retried; doubles per attempt (env SUBLEDGER_RETRY_BASE_SECONDS, default 30)."
    )
    var retryBase: Double?

    @Option(
        name: .customLong("retry-max"),
        help:
            "Longest wait in seconds between retries of a stored input (env SUBLEDGER_RETRY_MAX_SECONDS, default 21600)."
    )
    var retryMaximum: Double?

    @Option(
        name: .customLong("retry-max-attempts"),
        help: "Attempts before a stored input is quarantined (env SUBLEDGER_RETRY_MAX_ATTEMPTS, default 16).")
    var retryMaximumAttempts: Int?

    func apply(to configuration: inout AppleConfiguration, environment: [String: String]) throws {
        if let url = verifyReceiptURL ?? environment[EnvironmentVariable.verifyReceiptURL], !url.isEmpty {
            configuration.verifyReceiptProductionURL = url
        }
        if let url = verifyReceiptSandboxURL ?? environment[EnvironmentVariable.verifyReceiptSandboxURL], !url.isEmpty {
            configuration.verifyReceiptSandboxURL = url
        }
        configuration.extraRootPaths =
            appleRoots.isEmpty
            ? (environment[EnvironmentVariable.extraRoots] ?? "").split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            : appleRoots
        if let url = serverAPIURL ?? environment[EnvironmentVariable.serverAPIURL], !url.isEmpty {
            configuration.serverAPIProductionURL = url
        }
        if let url = serverAPISandboxURL ?? environment[EnvironmentVariable.serverAPISandboxURL], !url.isEmpty {
            configuration.serverAPISandboxURL = url
        }
        if let timeout = try seconds(appleTimeout, EnvironmentVariable.appleTimeout, environment) {
            configuration.timeout = timeout
        }
        if let timeout = try seconds(appleConnectTimeout, EnvironmentVariable.appleConnectTimeout, environment) {
            configuration.connectTimeout = timeout
        }
        if let count = try appleMaximumConnections
            ?? environment[EnvironmentVariable.appleMaximumConnections].map({
                try parseInt($0, EnvironmentVariable.appleMaximumConnections)
            })
        {
            guard (1...10_000).contains(count) else {
                throw ValidationError("--apple-max-connections must be 1...10000")
            }
            configuration.maximumConnections = count
        }
        if let count = try appleBreakerFailures
            ?? environment[EnvironmentVariable.appleBreakerThreshold].map({
                try parseInt($0, EnvironmentVariable.appleBreakerThreshold)
            })
        {
            guard count >= 0 else { throw ValidationError("--apple-breaker-failures must not be negative") }
            configuration.circuitBreakerThreshold = count
        }
        if let cooldown = try seconds(appleBreakerCooldown, EnvironmentVariable.appleBreakerCooldown, environment) {
            configuration.circuitBreakerCooldown = cooldown
        }
        if let base = try seconds(retryBase, EnvironmentVariable.retryBase, environment) {
            configuration.retry.base = base
        }
        if let maximum = try seconds(retryMaximum, EnvironmentVariable.retryMaximum, environment) {
            configuration.retry.maximum = maximum
        }
        if let attempts = try retryMaximumAttempts
            ?? environment[EnvironmentVariable.retryMaximumAttempts].map({
                try parseInt($0, EnvironmentVariable.retryMaximumAttempts)
            })
        {
            guard (1...1_000).contains(attempts) else { throw ValidationError("--retry-max-attempts must be 1...1000") }
            configuration.retry.maximumAttempts = attempts
        }
        if let trust = trustAppleRoot {
            configuration.trustAppleRoot = trust
        } else if let raw = environment[EnvironmentVariable.trustAppleRoot] {
            guard let trust = Bool(raw.lowercased()) else {
                throw ValidationError("\(EnvironmentVariable.trustAppleRoot) must be true or false")
            }
            configuration.trustAppleRoot = trust
        }
    }
}

/// A positive number of seconds from a flag, else from the environment variable `name`, as a `Duration`.
func seconds(_ flag: Double?, _ name: String, _ environment: [String: String]) throws -> Duration? {
    guard
        let value = try flag
            ?? environment[name].map({ text -> Double in
                guard let value = Double(text) else {
                    throw ValidationError("\(name) must be a number of seconds, not '\(text)'")
                }
                return value
            })
    else { return nil }
    guard value.isFinite, value > 0, value <= 31_536_000 else {
        throw ValidationError("\(name) must be a positive number of seconds, at most a year")
    }
    return .milliseconds(Int64((value * 1000).rounded()))
}

/// The configuration of a command that opens the database and calls Apple: `database` and `apple` over the
/// command's environment.
func serviceConfiguration(_ database: DatabaseOptions, _ apple: AppleOptions) throws -> ServiceConfiguration {
    let environment = CommandContext.current.environment
    var configuration = ServiceConfiguration()
    try database.apply(to: &configuration, environment: environment)
    try apple.apply(to: &configuration.apple, environment: environment)
    return configuration
}
