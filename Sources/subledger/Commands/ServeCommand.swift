import ArgumentParser
import Foundation
import SubLedgerService

/// `subledger serve`: runs the HTTP service until SIGTERM or SIGINT, then drains and stops.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the SubLedger HTTP service.")

    @Option(help: "Address to listen on (env SUBLEDGER_HOST, default 127.0.0.1).")
    var host: String?

    @Option(help: "TCP port (env SUBLEDGER_PORT, default 8080).")
    var port: Int?

    @Flag(inversion: .prefixedNo, help: "Apply schema.sql on start (default: on with the embedded database only).")
    var migrate: Bool?

    @Option(name: .customLong("verify-receipt-url"), help: "verifyReceipt production URL (env SUBLEDGER_VERIFY_RECEIPT_URL, default Apple's).")
    var verifyReceiptURL: String?

    @Option(name: .customLong("verify-receipt-sandbox-url"), help: "verifyReceipt sandbox URL (env SUBLEDGER_VERIFY_RECEIPT_SANDBOX_URL, default Apple's).")
    var verifyReceiptSandboxURL: String?

    @Option(name: .customLong("apple-root"), help: "Extra trusted root certificate for signed data, DER or PEM; repeatable (env SUBLEDGER_APPLE_EXTRA_ROOTS, comma-separated). E.g. appstore-sim's exported root.")
    var appleRoots: [String] = []

    @Flag(inversion: .prefixedNo, help: "Trust Apple Root CA G3 (env SUBLEDGER_TRUST_APPLE_ROOT, default true).")
    var trustAppleRoot: Bool?

    @OptionGroup var database: DatabaseOptions

    func run() async throws {
        let environment = ProcessInfo.processInfo.environment
        var configuration = ServiceConfiguration()
        try database.apply(to: &configuration, environment: environment)
        if let host = host ?? environment[EnvironmentVariable.host], !host.isEmpty { configuration.host = host }
        if let port = try port ?? environment[EnvironmentVariable.port].map({ try parseInt($0, EnvironmentVariable.port) }) {
            guard (0...65535).contains(port) else { throw ValidationError("the port must be between 0 and 65535") }
            configuration.port = port
        }
        configuration.migrateOnStart = migrate
        if let url = verifyReceiptURL ?? environment[EnvironmentVariable.verifyReceiptURL], !url.isEmpty {
            configuration.apple.verifyReceiptProductionURL = url
        }
        if let url = verifyReceiptSandboxURL ?? environment[EnvironmentVariable.verifyReceiptSandboxURL], !url.isEmpty {
            configuration.apple.verifyReceiptSandboxURL = url
        }
        configuration.apple.extraRootPaths = appleRoots.isEmpty
            ? (environment[EnvironmentVariable.extraRoots] ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            : appleRoots
        if let trust = trustAppleRoot {
            configuration.apple.trustAppleRoot = trust
        } else if let raw = environment[EnvironmentVariable.trustAppleRoot] {
            guard let trust = Bool(raw.lowercased()) else { throw ValidationError("\(EnvironmentVariable.trustAppleRoot) must be true or false") }
            configuration.apple.trustAppleRoot = trust
        }
        try await SubLedgerServer.run(configuration: configuration)
    }
}
