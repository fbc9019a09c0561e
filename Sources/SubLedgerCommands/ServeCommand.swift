import ArgumentParser
import Foundation
import SubLedgerComposition
import SubLedgerHTTP
import SubLedgerUseCases

/// `subledger serve`: runs the HTTP service until SIGTERM or SIGINT, then drains and stops.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the SubLedger HTTP service.")

    @Option(help: "Address to listen on (env SUBLEDGER_HOST, default 127.0.0.1).")
    var host: String?

    @Option(help: "TCP port (env SUBLEDGER_PORT, default 8080).")
    var port: Int?

    @Flag(
        inversion: .prefixedNo,
        help: "Apply the schema's migrations on start (default: on with the embedded database only).")
    var migrate: Bool?

    @OptionGroup var apple: AppleOptions
    @OptionGroup var stores: StoreOptions
    @OptionGroup var database: DatabaseOptions
    @OptionGroup var webhooks: WebhookDeliveryOptions
    @OptionGroup var readReplicas: ReadReplicaOptions
    @OptionGroup var traces: TracesOptions

    func run() async throws {
        let environment = CommandContext.current.environment
        // Before the configuration, which may create the embedded cluster's key file (a refused setting must not).
        let tracesOn = try traces.isOn(environment: environment)
        let configuration = try configuration(environment: environment)
        // Before anything makes an HTTP client: AsyncHTTPClient takes the process's tracer when it is made.
        let tracing = tracesOn ? try traces.bootstrap(environment: environment, logLevel: configuration.logLevel) : nil
        try await SubLedgerServer.run(configuration: configuration, tracing: tracing)
    }

    /// These options over `environment`, checked: a mistake stops `serve` before it opens anything.
    func configuration(environment: [String: String]) throws -> ServiceConfiguration {
        var configuration = ServiceConfiguration()
        try database.applyConnection(to: &configuration, environment: environment)
        if let host = host ?? environment[EnvironmentVariable.host], !host.isEmpty { configuration.host = host }
        if let port = try port
            ?? environment[EnvironmentVariable.port].map({ try parseInt($0, EnvironmentVariable.port) })
        {
            guard (0...65535).contains(port) else { throw ValidationError("the port must be between 0 and 65535") }
            configuration.port = port
        }
        configuration.migrateOnStart = migrate
        try apple.apply(to: &configuration.apple, environment: environment)
        try StoreModules.register(
            in: &configuration, options: stores, environment: environment)
        try webhooks.apply(to: &configuration, environment: environment)
        try readReplicas.apply(to: &configuration, environment: environment)
        // Last: with the embedded cluster this may create the key file, which a refused configuration must not.
        try database.applySecretKeys(to: &configuration, environment: environment)
        return configuration
    }
}
